import HTTP

/// A method other than GET or HEAD on a route that serves only those.
struct MethodNotAllowed: HTTPProblem {
    let method: String
    var problem: ProblemDetails { ProblemDetails(.methodNotAllowed, detail: "\(method) is not allowed here; use GET or HEAD") }
    var fields: [(name: String, value: String)] { [("Allow", "GET, HEAD")] }
}
