import Cache
import HTTP
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
    private let draining = Atomic<Bool>(false)
    /// Transforms run to completion (successful or not); dropped and refused ones do not count.
    public let transformsRun = Counter()

    public init(config: ThumbdConfig, library: ImageLibrary, logger: Logger = Logger(label: "thumbd")) {
        self.config = config
        self.files = LibraryFileCache(library: library)
        self.pool = WorkerPool(workers: config.limits.workers, queueLimit: config.limits.queue)
        var disk: DiskCache?
        if config.cache.diskBytes > 0 {
            disk = DiskCache(directory: config.cache.dir, capacityBytes: config.cache.diskBytes) { logger.warning("\($0)") }
            disk?.startIndexing()
        }
        self.store = VariantStore(memory: MemoryCache(capacityBytes: config.cache.memoryBytes), disk: disk)
    }

    /// While draining, /health answers 503 so load balancers stop sending traffic.
    public func beginDraining() { draining.store(true, ordering: .relaxed) }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let path = request.path
        if path.utf8.starts(with: "/img/".utf8) {
            if let refusal = allowReadOnly(request) { return responder.respond(refusal) }
            return ImageRoute(app: self).handle(request, responder: responder)
        }
        if path == "/health" {
            return responder.respond(allowReadOnly(request) ?? health())
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

    private func health() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        if draining.load(ordering: .relaxed) {
            return HTTPResponse(status: .serviceUnavailable, contentType: "application/json", body: #"{"status":"draining"}"#, headers: headers)
        }
        return HTTPResponse(status: .ok, contentType: "application/json", body: #"{"status":"ok"}"#, headers: headers)
    }
}
