import HTTP
import ThumbdCore

extension ThumbnailFailure: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .source(let error): Problems.problem(for: error)
        case .sourceTooLarge(let bytes, let limit):
            ProblemDetails(.contentTooLarge, detail: "the source is \(bytes) bytes, over the limit of \(limit)")
        case .imaging(let error): error.problem
        case .video(let error): error.problem
        case .workingMemory(let needed, let limit):
            ProblemDetails(.unprocessableContent,
                           detail: "this transform needs about \(MemoryPlan.mib(needed)) of working memory, over the server's limit of \(MemoryPlan.mib(limit)) (limits.transform_memory_bytes); ask for a smaller output or another format",
                           title: "Transform Too Large", extensions: [("needed_bytes", String(needed)), ("limit_bytes", String(limit))])
        case .overloaded: Overloaded().problem
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] {
        switch self {
        case .overloaded: Overloaded().fields
        case .source(let error as any HTTPProblem): error.fields
        case .imaging(let error): error.fields
        case .video(let error): error.fields
        default: []
        }
    }
}
