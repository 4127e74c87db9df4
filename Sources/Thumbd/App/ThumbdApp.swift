import Cache
import HTTP
import Imaging
import Logging

/// The composition root: builds every part once from the configuration, hands each route
/// what it needs, and dispatches requests by their route.
public final class ThumbdApp: HTTPHandler {
    public let config: ThumbdConfig
    public let metrics: ThumbdMetrics
    let thumbnails: ThumbnailService
    let originals: RemoteOriginals?
    let drain = DrainState()

    private let image: ImageRoute
    private let proxy: ProxyRoute
    private let listing: ListingRoute
    private let gallery: GalleryRoute
    private let health: HealthRoute
    private let metricsRoute: MetricsRoute

    public init(config: ThumbdConfig, library: ImageLibrary, gauges: ServerGauges, clock: any MonotonicClock = SystemClock(),
                logger: Logger = Logger(label: "thumbd")) {
        self.config = config
        let metrics = ThumbdMetrics(routes: Route.metricLabels)
        self.metrics = metrics
        let signer = config.security.key.isEmpty ? nil : URLSigner(key: config.security.key)
        let parser = TransformParser(presets: config.presets, maxDimension: config.limits.maxDimension,
                                     defaultQuality: config.output.quality)
        let links = ImageLinks(signer: signer)
        let pool = WorkerPool(workers: config.limits.workers, queueLimit: config.limits.queue)
        var disk: DiskCache?
        if config.cache.diskBytes > 0 {
            disk = DiskCache(directory: config.cache.dir, capacityBytes: config.cache.diskBytes,
                             report: { logger.warning("\($0)") }, clock: { clock.now() })
            disk?.startIndexing()
        }
        let store = VariantStore(memoryBytes: config.cache.memoryBytes, disk: disk, cacheControl: config.output.cacheControl)
        thumbnails = ThumbnailService(store: store, pool: pool,
                                      limits: .init(maxSourceBytes: config.limits.maxSourceBytes,
                                                    maxSourcePixels: config.limits.maxSourcePixels),
                                      metrics: metrics, clock: clock, logger: logger)
        if config.origins.allow.isEmpty {
            originals = nil
        } else {
            let fetcher = OriginFetcher(allow: OriginAllowList(config.origins.allow), allowPrivate: config.origins.allowPrivate,
                                        maxRedirects: config.origins.maxRedirects, connectTimeout: config.origins.connectTimeout,
                                        totalTimeout: config.origins.timeout, maxBytes: config.limits.maxSourceBytes)
            originals = RemoteOriginals(fetcher: fetcher, store: store, ttl: config.origins.ttl, clock: clock, logger: logger,
                                        metrics: metrics)
        }
        let index = LibraryIndex(root: library.rootPath, clock: clock)
        image = ImageRoute(targets: TargetMemo(), signer: signer, parser: parser,
                           files: LibraryFileCache(library: library, cacheControl: config.output.cacheControl),
                           thumbnails: thumbnails, clock: clock)
        proxy = ProxyRoute(signer: signer, parser: parser, originals: originals, thumbnails: thumbnails, clock: clock)
        listing = ListingRoute(index: index, pool: pool, links: links)
        gallery = GalleryRoute(index: index, pool: pool, links: links)
        health = HealthRoute(drain: drain)
        metricsRoute = MetricsRoute(metrics: metrics, thumbnails: thumbnails, originals: originals, gauges: gauges)
    }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let route = Route(path: request.path)
        responder.tag = route.rawValue
        if route == .server {
            // The parser lets `*` through for OPTIONS only (RFC 9110 §9.3.7): what the server allows.
            return responder.respond(HTTPResponse(status: .ok, headers: HTTPHeaders([("Allow", "GET, HEAD")])))
        }
        // Every route serves GET and HEAD only; a path no route serves is 404 whatever the method.
        if route != .notFound, case .other(let method) = request.method {
            return responder.respond(MethodNotAllowed(method: method).response)
        }
        switch route {
        case .image: image.handle(request, responder: responder)
        case .proxy: proxy.handle(request, responder: responder)
        case .listing: listing.handle(request, responder: responder)
        case .gallery: gallery.handle(request, responder: responder)
        case .health: health.handle(request, responder: responder)
        case .metrics: metricsRoute.handle(request, responder: responder)
        case .notFound: responder.respond(NoRoute(path: String(request.path)).response)
        case .server: break
        }
    }

    /// While draining, /health answers 503 so load balancers stop sending traffic.
    public func beginDraining() { drain.begin() }

    var pool: WorkerPool { thumbnails.pool }
}
