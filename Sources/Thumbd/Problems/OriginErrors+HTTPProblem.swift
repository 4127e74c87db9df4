import HTTP
import ThumbdCore

extension OriginFetcher.Failure: HTTPProblem {
    var problem: ProblemDetails {
        switch self {
        case .badURL(let why): ProblemDetails(.badRequest, detail: why, extensions: [("parameter", "url")])
        case .notAllowed(let host): ProblemDetails(.forbidden, detail: "origin \(host) is not allowed (after a redirect)")
        case .blockedAddress: ProblemDetails(.forbidden, detail: "the origin's address is not allowed (loopback, private or reserved)")
        case .timeout: ProblemDetails(.gatewayTimeout, detail: "the origin did not answer in time")
        case .tooSlow(let bytes, let seconds):
            ProblemDetails(.gatewayTimeout, detail: "the origin sent its image too slowly (\(bytes) bytes in \(Int(seconds.rounded())) s)")
        case .tooLarge: ProblemDetails(.contentTooLarge, detail: "the origin's image is over the size limit")
        case .connect(let why): ProblemDetails(.badGateway, detail: "cannot reach the origin: \(why)")
        case .tooManyRedirects: ProblemDetails(.badGateway, detail: "the origin redirected too many times")
        // A missing image is missing, whoever was asked for it.
        case .status(404), .status(410): ProblemDetails(.notFound, detail: "the origin has no such image")
        case .status(let code): ProblemDetails(.badGateway, detail: "the origin answered \(code)")
        }
    }

    /// A failure a retry may mend (the origin was slow or unreachable) says when to try again.
    var fields: [(name: HTTPFieldName, value: String)] {
        HTTPOrigin.staleAllowed(after: self) ? Overloaded().fields : []
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
        switch self {
        case .originUnavailable: Overloaded().fields
        case .fetch(let error): error.fields
        case .notAnImage: []
        }
    }
}
