import HTTP
import ThumbdCore

extension S3Error: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .notFound: ImageLibrary.LookupError.notFound.problem
        // The store's own code is named (never the request: it carries the signature).
        case .refused:
            ProblemDetails(.badGateway, detail: "the image store refused the request (\(refusalText))")
        case .unavailable: ProblemDetails(.serviceUnavailable, detail: "the image store is unavailable; try again shortly")
        case .tooLarge(let limit): ProblemDetails(.contentTooLarge, detail: "the image is over the size limit of \(limit) bytes")
        case .notAnImage: ImageLibrary.LookupError.notAnImage.problem
        case .changed: LibraryChange.changedWhileRead.problem
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] {
        switch self {
        case .unavailable: [(.retryAfter, String(Int(S3Objects.pause)))]
        case .changed: LibraryChange.changedWhileRead.fields
        default: []
        }
    }
}
