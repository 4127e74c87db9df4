import HTTP
import ThumbdCore

/// An error that knows the HTTP problem it is. Domain errors conform here, in the app, so
/// the targets that define them (Imaging, the library, the origin fetcher) stay free of
/// HTTP; routes turn any error into its response through `response(for:)`, and nowhere else.
protocol HTTPProblem: Error {
    var problem: ProblemDetails { get }
    /// Fields the response carries besides the problem (Retry-After, Allow, ...).
    var fields: [(name: HTTPFieldName, value: String)] { get }
}

extension HTTPProblem {
    var fields: [(name: HTTPFieldName, value: String)] { [] }

    var response: HTTPResponse {
        var response = problem.response
        for field in fields { response.headers.set(field.name, field.value) }
        return response
    }
}
