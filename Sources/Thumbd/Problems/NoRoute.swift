import HTTP
import ThumbdCore

/// A path no route serves.
struct NoRoute: HTTPProblem {
    let path: String
    var problem: ProblemDetails { ProblemDetails(.notFound, detail: "no route for \(path)") }
}
