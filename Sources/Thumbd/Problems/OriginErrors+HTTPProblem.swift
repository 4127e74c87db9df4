import HTTP
import ThumbdCore

extension OriginFetcher.Failure: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .badURL(let why): ProblemDetails(.badRequest, detail: why, extensions: [("parameter", "url")])
        case .notAllowed(let host): ProblemDetails(.forbidden, detail: "origin \(host) is not allowed (after a redirect)")
        case .blockedAddress: ProblemDetails(.forbidden, detail: "the origin's address is not allowed (loopback, private or reserved)")
        case .timeout: ProblemDetails(.gatewayTimeout, detail: "the origin did not answer in time")
        case .tooLarge: ProblemDetails(.contentTooLarge, detail: "the origin's image is over the size limit")
        case .connect(let why): ProblemDetails(.badGateway, detail: "cannot reach the origin: \(why)")
        case .tooManyRedirects: ProblemDetails(.badGateway, detail: "the origin redirected too many times")
        case .status(let code): ProblemDetails(.badGateway, detail: "the origin answered \(code)")
        }
    }
}

extension HTTPOrigin.Failure: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .fetch(let error): error.problem
        case .notAnImage: ProblemDetails(.badGateway, detail: "the origin did not answer with an image")
        case .originUnavailable(let why): ProblemDetails(.serviceUnavailable, detail: "the origin is not answering: \(why)")
        }
    }

    var fields: [(name: HTTPFieldName, value: String)] {
        if case .originUnavailable = self { return Overloaded().fields }
        return []
    }
}
