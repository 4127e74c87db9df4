import Cache
import HTTP
import Imaging
import Logging
import Synchronization

/// The router: the one place that maps request targets to what answers them.
public final class ThumbdApp: HTTPHandler {
    public let config: ThumbdConfig
    let files: LibraryFileCache
    let pool: WorkerPool
    let store: VariantStore
    let coalescer = Coalescer<ThumbnailOutcome>()
    let targets = TargetMemo()
    public let metrics = ThumbdMetrics()
    /// Set when `security.key` is: every /img and /proxy target must be signed.
    let signer: URLSigner?
    /// Set when `origins.allow` lists hosts: /proxy is on.
    let remote: RemoteSource?
    let index: LibraryIndex
    /// Open connections and in-flight requests, from the server once it exists.
    let serverState = Mutex<(@Sendable () -> (connections: Int, inFlight: Int))?>(nil)
    private let draining = Atomic<Bool>(false)
    /// Transforms run to completion (successful or not); dropped and refused ones do not count.
    public let transformsRun = Counter()

    public init(config: ThumbdConfig, library: ImageLibrary, logger: Logger = Logger(label: "thumbd")) {
        self.config = config
        self.signer = config.security.key.isEmpty ? nil : URLSigner(key: config.security.key)
        self.files = LibraryFileCache(library: library, cacheControl: config.output.cacheControl)
        self.index = LibraryIndex(root: library.rootPath)
        self.pool = WorkerPool(workers: config.limits.workers, queueLimit: config.limits.queue)
        var disk: DiskCache?
        if config.cache.diskBytes > 0 {
            disk = DiskCache(directory: config.cache.dir, capacityBytes: config.cache.diskBytes) { logger.warning("\($0)") }
            disk?.startIndexing()
        }
        self.store = VariantStore(memoryBytes: config.cache.memoryBytes, disk: disk, cacheControl: config.output.cacheControl)
        if config.origins.allow.isEmpty {
            remote = nil
        } else {
            let fetcher = OriginFetcher(allow: OriginAllowList(config.origins.allow), allowPrivate: config.origins.allowPrivate,
                                        maxRedirects: config.origins.maxRedirects, connectTimeout: config.origins.connectTimeout,
                                        totalTimeout: config.origins.timeout, maxBytes: config.limits.maxSourceBytes)
            remote = RemoteSource(fetcher: fetcher, store: store, ttl: config.origins.ttl, logger: logger, metrics: metrics)
        }
    }

    /// The transform a query asks for (nil: none), or the 400 that names the bad parameter.
    func transformRequest(_ query: QueryParameters) -> Result<TransformRequest?, HTTPResponseBox> {
        guard TransformRequest.asksForTransform(query) else { return .success(nil) }
        do {
            return .success(try TransformRequest(query: query, presets: config.presets, limits: config.limits,
                                                 defaultQuality: config.output.quality))
        } catch {
            return .failure(HTTPResponseBox(ProblemDetails(.badRequest, detail: error.detail,
                                                           extensions: [("parameter", error.parameter)]).response))
        }
    }

    /// The answer when the worker queue is full.
    static func overloaded() -> HTTPResponse {
        var response = ProblemDetails(.serviceUnavailable, detail: "too much work is waiting; try again shortly").response
        response.headers.set("Retry-After", "1")
        return response
    }

    /// Runs `work` for one request on the worker pool, or answers 503 when the queue is full.
    func onPool(_ responder: HTTPResponder, _ work: @escaping @Sendable () -> Void) {
        if !pool.submit(work) { responder.respond(Self.overloaded()) }
    }

    /// Joins the work under way for `key`, or starts `work` on the pool for every request
    /// that joins it; work nobody waits for any more by the time it starts is skipped.
    func coalesced(_ key: String, _ waiter: Coalescer<ThumbnailOutcome>.Waiter,
                   _ work: @escaping @Sendable () -> ThumbnailOutcome) {
        guard coalescer.join(key, waiter) else { return }
        let accepted = pool.submit { [self] in
            if coalescer.abandonIfUnwanted(key) { return }
            coalescer.finish(key, with: work())
        }
        if !accepted { coalescer.finish(key, with: .failed(Self.overloaded())) }
    }

    /// The transform step for any source, counted and timed in the metrics. Worker thread.
    func makeThumbnail(_ data: [UInt8], sourceVersion: String, lastModified: Int, options: TransformOptions,
                       negotiate: Bool, timing: String) -> ThumbnailOutcome {
        let started = MonotonicClock.now()
        let outcome = ImageRoute.make(data, sourceVersion: sourceVersion, lastModified: lastModified, options: options,
                                      negotiate: negotiate, config: config, timing: timing)
        let seconds = MonotonicClock.now() - started
        switch outcome {
        case .made(let variant, _):
            metrics.recordTransform(format: String(variant.contentType.dropFirst("image/".count)), ok: true, seconds: seconds)
        case .failed:
            metrics.recordTransform(format: options.format?.rawValue ?? "auto", ok: false, seconds: seconds)
        }
        transformsRun.increment()
        return outcome
    }

    /// The URL of a library image, with `query` if any, signed when signing is on.
    func imageURL(_ path: String, _ query: String = "") -> String {
        let target = "/img/" + Self.percentEncodePath(path) + (query.isEmpty ? "" : "?" + query)
        return signer?.sign(target) ?? target
    }

    /// Percent-encodes a library path for a URL (slashes kept).
    static func percentEncodePath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Nil when the target may be served; a 403 when signing is on and its signature is
    /// missing, misplaced or wrong.
    func signatureRefusal(_ target: String) -> HTTPResponse? {
        guard let signer else { return nil }
        do {
            try signer.verify(target)
            return nil
        } catch .missing {
            return ProblemDetails(.forbidden, detail: "this server requires signed URLs: add s, the signature").response
        } catch .notLast {
            return ProblemDetails(.forbidden, detail: "the signature s must be the last parameter, and appear once").response
        } catch {
            return ProblemDetails(.forbidden, detail: "the signature does not match this URL").response
        }
    }

    /// While draining, /health answers 503 so load balancers stop sending traffic.
    public func beginDraining() { draining.store(true, ordering: .relaxed) }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let path = request.path
        if path.utf8.starts(with: "/img/".utf8) {
            if let refusal = allowReadOnly(request) { return responder.respond(refusal) }
            return ImageRoute(app: self).handle(request, responder: responder)
        }
        if path == "/proxy" {
            if let refusal = allowReadOnly(request) { return responder.respond(refusal) }
            return ProxyRoute(app: self).handle(request, responder: responder)
        }
        if path == "/health" {
            return responder.respond(allowReadOnly(request) ?? health())
        }
        if path == "/v1/images" {
            if let refusal = allowReadOnly(request) { return responder.respond(refusal) }
            return ListingRoute(app: self).handle(request, responder: responder)
        }
        if path == "/" {
            if let refusal = allowReadOnly(request) { return responder.respond(refusal) }
            return GalleryPage(app: self).handle(request, responder: responder)
        }
        if path == "/metrics" {
            return responder.respond(allowReadOnly(request) ?? metricsResponse())
        }
        responder.respond(ProblemDetails(.notFound, detail: "no route for \(request.path)").response)
    }

    private func allowReadOnly(_ request: HTTPRequest) -> HTTPResponse? {
        switch request.method {
        case .get, .head: return nil
        case .other(let method):
            var response = ProblemDetails(.methodNotAllowed, detail: "\(method) is not allowed here; use GET or HEAD").response
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
    }

    /// Reads the state worth reporting into the metrics, then renders them.
    func metricsResponse() -> HTTPResponse {
        let memory = store.memory.statistics
        metrics.total("thumbd_cache_requests_total", [("tier", "memory"), ("result", "hit")], memory.hits)
        metrics.total("thumbd_cache_requests_total", [("tier", "memory"), ("result", "miss")], memory.misses)
        metrics.total("thumbd_cache_evictions_total", [("tier", "memory")], memory.evictions)
        metrics.gauge("thumbd_cache_bytes", [("tier", "memory")], memory.bytes)
        metrics.gauge("thumbd_cache_entries", [("tier", "memory")], memory.entries)
        if let disk = store.disk?.statistics {
            metrics.total("thumbd_cache_requests_total", [("tier", "disk"), ("result", "hit")], disk.hits)
            metrics.total("thumbd_cache_requests_total", [("tier", "disk"), ("result", "miss")], disk.misses)
            metrics.total("thumbd_cache_evictions_total", [("tier", "disk")], disk.evictions)
            metrics.total("thumbd_cache_writes_total", [("tier", "disk")], disk.writes)
            metrics.total("thumbd_cache_corrupt_entries_total", [("tier", "disk")], disk.corrupt)
            metrics.gauge("thumbd_cache_bytes", [("tier", "disk")], disk.bytes)
            metrics.gauge("thumbd_cache_entries", [("tier", "disk")], disk.entries)
        }
        metrics.gauge("thumbd_transform_queue_depth", [], pool.queueDepth)
        metrics.gauge("thumbd_transforms_running", [], pool.running)
        metrics.total("thumbd_coalesced_requests_total", [], coalescer.joined.count)
        if let remote {
            metrics.total("thumbd_origin_stale_served_total", [], remote.staleServed.count)
            metrics.total("thumbd_origin_shared_fetches_total", [], remote.sharedFetches)
        }
        if let state = serverState.withLock({ $0 })?() {
            metrics.gauge("thumbd_http_open_connections", [], state.connections)
            metrics.gauge("thumbd_http_requests_in_flight", [], state.inFlight)
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(headers: headers, body: .bytes(metrics.render()))
    }

    private func health() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        if draining.load(ordering: .relaxed) {
            return HTTPResponse(status: .serviceUnavailable, contentType: "application/json", body: #"{"status":"draining"}"#, headers: headers)
        }
        return HTTPResponse(status: .ok, contentType: "application/json", body: #"{"status":"ok"}"#, headers: headers)
    }
}

/// A response carried as an error value.
struct HTTPResponseBox: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}
