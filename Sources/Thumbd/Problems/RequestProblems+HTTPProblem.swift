import HTTP
import ThumbdCore
import ThumbdProtocol

extension QueryParameters.Problem: HTTPProblem {
    var problem: ProblemDetails { ProblemDetails(.badRequest, detail: "malformed query string") }
}

extension ParameterError: HTTPProblem {
    var problem: ProblemDetails { ProblemDetails(.badRequest, detail: detail, extensions: [("parameter", parameter)]) }
}

extension URLSigner.Refusal: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .missing: ProblemDetails(.forbidden, detail: "this server requires signed URLs: add s, the signature")
        case .notLast: ProblemDetails(.forbidden, detail: "the signature s must be the last parameter, and appear once")
        case .wrong: ProblemDetails(.forbidden, detail: "the signature does not match this URL")
        }
    }
}
