import Cache
import HTTP
import Imaging

/// `GET /proxy?url=...&...`: a remote image, fetched from an allowed origin (once for all the
/// sizes asked of it), with the same parameters, headers and cache as `/img`.
struct ProxyRoute {
    let app: ThumbdApp
    var config: ThumbdConfig { app.config }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        if let refusal = app.signatureRefusal(request.target) { return responder.respond(refusal) }
        guard let remote = app.remote else {
            return responder.respond(ProblemDetails(.forbidden, detail: "remote images are off (origins.allow is empty)").response)
        }
        let query: QueryParameters
        do {
            query = try QueryParameters(parsing: request.query)
        } catch {
            return responder.respond(ProblemDetails(.badRequest, detail: "malformed query string").response)
        }
        let urls = query.pairs.filter { $0.name == "url" }
        guard urls.count == 1, let url = urls.first?.value, !url.isEmpty else {
            return responder.respond(ProblemDetails(.badRequest, detail: urls.isEmpty ? "url is required" : "parameter 'url' is repeated",
                                                    extensions: [("parameter", "url")]).response)
        }
        let host: String
        do {
            host = try OriginFetcher.host(of: url)
        } catch {
            return responder.respond(ProblemDetails(.badRequest, detail: "url must be an absolute http or https URL",
                                                    extensions: [("parameter", "url")]).response)
        }
        guard remote.fetcher.allow.allows(host: host) else {
            return responder.respond(ProblemDetails(.forbidden, detail: "origin \(host) is not allowed").response)
        }
        var rest = query
        rest.pairs.removeAll { $0.name == "url" }
        let transform: TransformRequest?
        switch app.transformRequest(rest) {
        case .success(let parsed): transform = parsed
        case .failure(let refusal): return responder.respond(refusal.response)
        }
        let accept = request.headers["Accept"]
        let image = ImageRoute(app: app)
        let vary = transform?.negotiatesFormat ?? false
        // Known and fresh: the thumbnail's key needs no network, so a hit is answered here.
        if let transform, let fresh = remote.fresh(url) {
            let (key, _) = Self.key(url: url, version: fresh.version, transform: transform, format: fresh.format, accept: accept)
            if let hit = app.store.lookup(key, vary: vary) {
                return responder.respond(hit.response(to: request))
            }
        }
        let identity = "proxy|\(url)|\(transform?.options.canonicalText ?? "original")|\(vary ? FormatNegotiation.modernFormat(accept: accept)?.rawValue ?? "legacy" : "")"
        let waiter = Coalescer<ThumbnailOutcome>.Waiter(
            isCancelled: { responder.isCancelled },
            deliver: { outcome in
                switch outcome {
                case .made(let variant, let timing):
                    let xCache = timing.hasPrefix("cache;desc=") ? String(timing.dropFirst("cache;desc=".count)) : "miss"
                    responder.respond(image.representation(body: .bytes(variant.bytes), contentType: variant.contentType,
                                                           etag: variant.etag, xCache: xCache, timing: timing, vary: vary,
                                                           lastModified: VariantStore.timestamp(variant.lastModified)).response(to: request))
                case .failed(let response):
                    responder.respond(response)
                }
            })
        app.coalesced(identity, waiter) { [app, transform] in
            Self.produce(app: app, remote: remote, url: url, transform: transform, accept: accept)
        }
    }

    /// Runs on a worker thread: the original (fetched or cached), then the thumbnail.
    static func produce(app: ThumbdApp, remote: RemoteSource, url: String, transform: TransformRequest?, accept: String?) -> ThumbnailOutcome {
        let started = MonotonicClock.now()
        let original: RemoteSource.Original
        switch remote.original(url) {
        case .success(let value): original = value
        case .failure(let failure): return .failed(problem(for: failure).response)
        }
        let fetched = "fetch;dur=" + ServerTiming.milliseconds(MonotonicClock.now() - started)
        guard let transform else {
            // No parameters: the original itself, as /img does for library files.
            let variant = CachedVariant(bytes: original.bytes, contentType: original.format?.mediaType ?? "application/octet-stream",
                                        etag: "o" + StableHash.hex128(original.version), lastModified: original.lastModified)
            return .made(variant, timing: fetched)
        }
        if original.bytes.count > app.config.limits.maxSourceBytes {
            return .failed(ProblemDetails(.contentTooLarge, detail: "the source is over \(app.config.limits.maxSourceBytes) bytes").response)
        }
        let (key, options) = key(url: url, version: original.version, transform: transform, format: original.format, accept: accept)
        if let hit = app.store.variant(key) {
            return .made(hit.variant, timing: VariantStore.hitTiming(hit.tier))
        }
        let outcome = app.makeThumbnail(original.bytes, sourceVersion: original.version, lastModified: original.lastModified,
                                         options: options, negotiate: transform.negotiatesFormat, timing: fetched)
        if case .made(let variant, _) = outcome { app.store.store(key, variant) }
        return outcome
    }

    /// The thumbnail key covers the URL, the origin's version (validators), the options and
    /// the format, so a changed origin image gives new thumbnails.
    static func key(url: String, version: String, transform: TransformRequest, format: ImageFormat?, accept: String?)
        -> (CacheKey, TransformOptions) {
        var options = transform.options.resolved(for: format)
        var formatInKey = options.format?.rawValue ?? "source"
        if transform.negotiatesFormat {
            options.format = FormatNegotiation.modernFormat(accept: accept)
            formatInKey = options.format?.rawValue ?? "legacy"
        }
        return (CacheKey("proxy|\(url)|\(version)|\(options.canonicalText)|\(formatInKey)"), options)
    }

    /// The origin's Last-Modified; none when it sent none (not 1970).
    static func problem(for failure: RemoteSource.Failure) -> ProblemDetails {
        switch failure {
        case .notAnImage:
            return ProblemDetails(.badGateway, detail: "the origin did not answer with an image")
        case .fetch(let error):
            switch error {
            case .badURL(let why): return ProblemDetails(.badRequest, detail: why, extensions: [("parameter", "url")])
            case .notAllowed(let host): return ProblemDetails(.forbidden, detail: "origin \(host) is not allowed (after a redirect)")
            case .blockedAddress: return ProblemDetails(.forbidden, detail: "the origin's address is not allowed (loopback, private or reserved)")
            case .timeout: return ProblemDetails(.gatewayTimeout, detail: "the origin did not answer in time")
            case .tooLarge: return ProblemDetails(.contentTooLarge, detail: "the origin's image is over the size limit")
            case .connect(let why): return ProblemDetails(.badGateway, detail: "cannot reach the origin: \(why)")
            case .tooManyRedirects: return ProblemDetails(.badGateway, detail: "the origin redirected too many times")
            case .status(let code): return ProblemDetails(.badGateway, detail: "the origin answered \(code)")
            }
        }
    }
}
