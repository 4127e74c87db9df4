import HTTP
import ThumbdCore

/// A method the route does not serve (GET and HEAD for most).
struct MethodNotAllowed: HTTPProblem {
    let method: String
    var allowed = "GET, HEAD"
    var problem: ProblemDetails { ProblemDetails(.methodNotAllowed, detail: "\(method) is not allowed here; use \(allowed)") }
    var fields: [(name: HTTPFieldName, value: String)] { [(.allow, allowed)] }
}
