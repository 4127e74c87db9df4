import HTTP

extension ThumbnailFailure: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .source(let error): Problems.problem(for: error)
        case .sourceTooLarge(let bytes, let limit):
            ProblemDetails(.contentTooLarge, detail: "the source is \(bytes) bytes, over the limit of \(limit)")
        case .imaging(let error): error.problem
        case .overloaded: Overloaded().problem
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] {
        switch self {
        case .overloaded: Overloaded().fields
        case .source(let error as any HTTPProblem): error.fields
        default: []
        }
    }
}
