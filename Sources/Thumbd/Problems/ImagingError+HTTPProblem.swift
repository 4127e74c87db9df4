import HTTP
import Imaging
import ThumbdCore
import ThumbdProtocol

extension ImagingError: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .unsupportedFormat: ProblemDetails(.unsupportedMediaType, detail: description)
        case .tooManyPixels, .tooManyFrames, .outputTooLarge, .undecodable: ProblemDetails(.unprocessableContent, detail: description)
        // The client asked for nothing wrong: the server failed (and logged it).
        case .encodingFailed: ProblemDetails(.internalServerError, detail: description)
        // The detail (a file, OpenCV's message) is the log's, not the client's.
        case .faceDetectionFailed: ProblemDetails(.internalServerError, detail: "faces cannot be found: the face detector failed")
        case .rendererUnavailable: ProblemDetails(.internalServerError, detail: "SVG and PDF cannot be drawn: no renderer could be started")
        case .badParameter(let name, let detail): ParameterError(parameter: name, detail: detail).problem
        // Only a request that joined the very moment its work was stopped sees this.
        case .cancelled: ProblemDetails(.serviceUnavailable, detail: description)
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] {
        if case .cancelled = self { return Overloaded().fields }
        return []
    }
}
