import HTTP
import Imaging
import ThumbdProtocol

extension ImagingError: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .unsupportedFormat: ProblemDetails(.unsupportedMediaType, detail: description)
        case .tooManyPixels, .tooManyFrames, .outputTooLarge, .undecodable: ProblemDetails(.unprocessableContent, detail: description)
        // The client asked for nothing wrong: the server failed (and logged it).
        case .encodingFailed: ProblemDetails(.internalServerError, detail: description)
        case .badParameter(let name, let detail): ParameterError(parameter: name, detail: detail).problem
        }
    }
}
