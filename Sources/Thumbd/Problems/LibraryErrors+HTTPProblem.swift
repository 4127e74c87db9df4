import HTTP

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
        }
    }
}

extension LibraryChange: HTTPProblem {
    var problem: ProblemDetails { ProblemDetails(.notFound, detail: "the image changed while it was being read") }
}
