import HTTP
import ThumbdCore

extension LibraryPath.Problem: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .malformedEncoding: ProblemDetails(.badRequest, detail: "the image path is not valid percent-encoded UTF-8")
        // A path thumbd refuses to look up is answered like a missing file.
        case .refused: ImageLibrary.LookupError.notFound.problem
        }
    }
}

extension ImageLibrary.LookupError: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .notFound: ProblemDetails(.notFound, detail: "no such image")
        case .notAnImage: ProblemDetails(.unsupportedMediaType, detail: "not an image format thumbd can read")
        case .changing: LibraryChange.changedWhileRead.problem
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] { self == .changing ? LibraryChange.changedWhileRead.fields : [] }
}

extension LibraryChange: HTTPProblem {
    /// The file is being rewritten: the client is asked to come back in a moment, when the
    /// new version is complete, rather than get bytes of neither version.
    var problem: ProblemDetails { ProblemDetails(.serviceUnavailable, detail: "the image is changing; try again shortly") }
    var fields: [(name: HTTPFieldName, value: String)] { [(.retryAfter, "1")] }
}
