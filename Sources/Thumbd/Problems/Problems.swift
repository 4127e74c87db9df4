import HTTP
import ThumbdCore

enum Problems {
    /// The problem of any error: its own, or a 500 for one that has none.
    static func problem(for error: any Error) -> ProblemDetails {
        (error as? any HTTPProblem)?.problem ?? ProblemDetails(.internalServerError, detail: "unexpected error: \(error)")
    }

    /// The response for any error.
    static func response(for error: any Error) -> HTTPResponse {
        if let problem = error as? any HTTPProblem { return problem.response }
        return problem(for: error).response
    }
}
