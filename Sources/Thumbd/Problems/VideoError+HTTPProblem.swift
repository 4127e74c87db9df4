import HTTP
import Video

extension VideoError: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .unsupported(let message):
            ProblemDetails(.unsupportedMediaType, detail: "the video cannot be decoded here: \(message)")
        case .notVideo(let message), .broken(let message):
            ProblemDetails(.unprocessableContent, detail: "the video cannot be read: \(message)")
        case .tooLarge(let message):
            ProblemDetails(.unprocessableContent, detail: "\(message) (limits.max_source_pixels)")
        case .tooLong(let message):
            ProblemDetails(.unprocessableContent, detail: "\(message) (limits.video_max_duration)")
        case .timedOut(let message):
            ProblemDetails(.unprocessableContent, detail: "\(message) (limits.video_decode_seconds)")
        // The source failed, not the client: the store or the file went away.
        case .readFailed(let message):
            ProblemDetails(.badGateway, detail: message)
        case .outOfMemory:
            ProblemDetails(.serviceUnavailable, detail: message)
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] {
        if case .outOfMemory = self { return Overloaded().fields }
        return []
    }
}
