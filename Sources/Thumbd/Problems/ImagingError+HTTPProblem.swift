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
        case .encodingFailed, .faceDetectionFailed: ProblemDetails(.internalServerError, detail: description)
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
