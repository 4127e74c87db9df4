import Clocks
import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol

/// `GET /proxy?url=...&...`: a remote image from an allowed origin (fetched once for all
/// the sizes asked of it), with the same parameters, headers and cache as `/img`.
struct ProxyRoute: Sendable {
    let authorization: TargetAuthorization
    let parser: TransformParser
    /// Nil when `origins.allow` is empty: remote images are off.
    let originals: RemoteOriginals?
    let thumbnails: ThumbnailEndpoint
    let clock: any MonotonicClock

    /// Why a proxy request is refused before anything is fetched.
    enum Refusal: HTTPProblem {
        case remoteOff
        case originNotAllowed(String)

        var problem: ProblemDetails {
            switch self {
            case .remoteOff: ProblemDetails(.forbidden, detail: "remote images are off (origins.allow is empty)")
            case .originNotAllowed(let host): ProblemDetails(.forbidden, detail: "origin \(host) is not allowed")
            }
        }
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            try authorization.check(request.target)
            guard let originals else { throw Refusal.remoteOff }
            var query = try QueryParameters(parsing: request.query)
            let url = try Self.allowedURL(in: query, originals: originals)
            query.pairs.removeAll { $0.name == "url" }
            let source = RemoteSource(url: url, originals: originals, clock: clock)
            guard let transform = try parser.transform(query) else {
                return thumbnails.original(request, of: source, responder: responder)
            }
            try thumbnails.answer(request, transform: transform, of: source, responder: responder)
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// The one non-empty `url` parameter, when its host is one `originals` may fetch from:
    /// the rules `/v1/info` shares.
    static func allowedURL(in query: QueryParameters, originals: RemoteOriginals) throws -> String {
        let urls = query.pairs.filter { $0.name == "url" }
        guard urls.count == 1, let url = urls.first?.value, !url.isEmpty else {
            throw urls.count > 1 ? ParameterError.repeated("url") : ParameterError(parameter: "url", detail: "url is required")
        }
        let host = try OriginFetcher.host(of: url)
        guard originals.store.fetcher.allow.allows(host: host) else { throw Refusal.originNotAllowed(host) }
        return url
    }
}
