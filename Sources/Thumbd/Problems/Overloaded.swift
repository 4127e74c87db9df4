import HTTP
import ThumbdCore

/// Too much work is waiting for the worker pool.
struct Overloaded: HTTPProblem {
    var problem: ProblemDetails { ProblemDetails(.serviceUnavailable, detail: "too much work is waiting; try again shortly") }
    var fields: [(name: HTTPFieldName, value: String)] { [(.retryAfter, "1")] }
}
