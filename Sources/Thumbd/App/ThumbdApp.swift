import Cache
import Clocks
import CSystem
import HTTP
import HTTPServer
import Faces
import Imaging
import Logging
import ThumbdCore
import ThumbdProtocol
import VectorPages

/// The composition root: builds every part once from the configuration, hands each route
/// what it needs, and dispatches requests by their route.
public final class ThumbdApp: HTTPHandler {
    public let config: ThumbdConfig
    public let metrics: ThumbdMetrics
    public let memoryPlan: MemoryPlan
    let thumbnails: ThumbnailService
    let originals: RemoteOriginals?
    /// The threads a bucket's originals are streamed on (nil for a folder library).
    let transfers: WorkerPool?
    let drain = DrainState()
    /// Applies the purges other replicas published; nil without a shared tier.
    let purgeFollower: PurgeFollower?
    private let disk: DiskCache?
    /// SVG and PDF, drawn by renderer processes; nil when no renderer executable was found.
    let vectors: VectorSources?

    private let image: ImageRoute
    private let proxy: ProxyRoute
    private let listing: ListingRoute
    let gallery: GalleryRoute
    /// How long the worker pool stays idle before memory kept for the next transform is
    /// handed back: longer than a gap between a burst's requests, short beside a quiet spell.
    static let idleDelay = 1.0
    private let health: HealthRoute
    private let metricsRoute: MetricsRoute
    private let imageInfo: ImageInfoRoute
    private let remoteInfo: RemoteInfoRoute
    /// Nil without `admin.token`: the route does not exist.
    private let purge: PurgeRoute?
    /// Nil with `picsum.enabled: false`.
    private let picsum: PicsumRoute?

    /// `memory`: the sizes `MemoryPlan` worked out for the configuration (tiers, budget).
    /// `wallClock` tells the date signed URLs' `expires` is compared with.
    public init(config: ThumbdConfig, memory: MemoryPlan, library root: LibraryRoot, gauges: ServerGauges,
                faces detector: FaceDetector? = nil, clock: any MonotonicClock = SystemClock(), wallClock: any WallClock = SystemWallClock(),
                logger: Logger = Logger(label: "thumbd")) {
        self.config = config
        self.memoryPlan = memory
        let metrics = ThumbdMetrics(routes: Route.metricLabels)
        self.metrics = metrics
        let signer = config.security.key.isEmpty ? nil : URLSigner(key: config.security.key)
        let parser = Self.transformParser(config)
        let links = ImageLinks(signer: signer)
        let authorization = TargetAuthorization(signer: signer, clock: wallClock)
        let vectors = Self.vectorSources(config, clock: clock, logger: logger)
        self.vectors = vectors
        // Idle for a second: libjpeg's kept buffers are unmapped, a burst's spare renderers let
        // go, then what malloc freed goes back.
        let pool = WorkerPool(workers: config.limits.workers, queueLimit: config.limits.queue,
                              whenIdle: { DecoderScratch.release(); vectors?.renderer.retireSpares(); csys_release_free_memory() },
                              idleDelay: Self.idleDelay)
        let disk = config.cache.diskBytes <= 0 ? nil
            : DiskCache(directory: config.cache.dir, capacityBytes: config.cache.diskBytes, clock: clock,
                        report: { logger.warning("\($0)") })
        self.disk = disk
        let imageFields = ImageFields(cacheControl: config.output.imageCacheControl, acceptClientHints: config.output.clientHints)
        let presenter = ThumbnailPresenter(fields: imageFields)
        let sharedStore = config.sharedClient(clock: clock).map {
            // Its requests are counted by the tier's own metrics, not as the library's.
            SharedStore(client: $0, clock: clock, logger: logger)
        }
        // The writes waiting hold their variants: a bound that fits the memory plan.
        let sharedTier = sharedStore.map { SharedTier(store: $0, queueBytes: min(SharedTier.Defaults.queueBytes, memory.limit / 32)) }
        let store = VariantStore(memoryBytes: memory.memoryTier, disk: disk, shared: sharedTier, prepare: presenter.prepared)
        // Under a limit the memory tier gives its room to transforms that need it (MemoryPlan).
        var yielding: (@Sendable (Int) -> Bool)?
        if let room = memory.sharedRoom {
            yielding = { reserved in store.yieldMemory(toTransformsHolding: reserved, of: room) }
        }
        // A large transform's freed memory goes back at once only past half the limit; below
        // it the arenas keep it for the next transform, and an idle pool hands it back.
        let nearLimit = memory.limit / 2
        let budget = MemoryBudget(limit: memory.transformBudget, reservedChanged: yielding,
                                  handBackLarge: { (ProcessMemory.residentBytes() ?? Int.max) >= nearLimit })
        let faces = detector.map { SourceFaces(detector: $0, store: store, maxPixels: config.limits.maxSourcePixels) }
        let limits = Self.thumbnailLimits(config)
        thumbnails = ThumbnailService(store: store, pool: pool, memory: budget, limits: limits,
                                      metrics: metrics, clock: clock, logger: logger, faces: faces, vectors: vectors)
        let reading = FactReading(video: limits.video, vectors: vectors)
        // Originals fetched from elsewhere (remote origins, an S3 library) share one tier.
        let originalStore = OriginalStore(memoryBytes: memory.originalsTier, disk: disk)
        originals = Self.remoteOriginals(config, kept: originalStore, metrics: metrics, clock: clock, logger: logger)
        let library = Self.libraryBackend(root, config: config, memory: memory, fields: imageFields, kept: originalStore,
                                          pool: pool, metrics: metrics, reading: reading, clock: clock, logger: logger)
        let tagging = SurrogateTagging(config.cdn.kind)
        let endpoint = ThumbnailEndpoint(service: thumbnails, presenter: presenter, watermarks: library.watermarks, tagging: tagging)
        if case .bucket = root {
            transfers = WorkerPool(workers: S3Passthrough.Defaults.transfers, queueLimit: S3Passthrough.Defaults.queuedTransfers,
                                   name: "transfer", idleDelay: Self.idleDelay)
        } else {
            transfers = nil
        }
        let answers = LibraryAnswers(library: library, thumbnails: endpoint, pool: pool, transfers: transfers, fields: imageFields)
        image = ImageRoute(targets: TargetMemo(), authorization: authorization, parser: parser, answers: answers)
        proxy = ProxyRoute(authorization: authorization, parser: parser, originals: originals, thumbnails: endpoint, clock: clock)
        listing = ListingRoute(index: library.index, pool: pool, links: links)
        // One catalog for the gallery's Picsum section and the routes: made once per snapshot.
        let catalogs = config.picsum.enabled ? PicsumCatalogs(index: library.index) : nil
        gallery = GalleryRoute(index: library.index, pool: pool, links: links, picsum: catalogs)
        health = HealthRoute(drain: drain)
        let cdn = config.cdn.kind == .none ? nil : CDNPurge(kind: config.cdn.kind, endpoint: config.cdn.endpoint, service: config.cdn.service,
                                                            token: config.cdn.token, attempts: config.cdn.purgeAttempts,
                                                            timeoutSeconds: config.cdn.purgeTimeout, send: CDNPurgeTransport.send)
        metricsRoute = MetricsRoute(metrics: metrics, thumbnails: thumbnails, originals: originals, shared: sharedTier, gauges: gauges,
                                   memoryPlan: memory, vectors: vectors, cdn: cdn)
        imageInfo = ImageInfoRoute(library: library, pool: pool, links: links, faces: faces, tagging: tagging)
        remoteInfo = RemoteInfoRoute(authorization: authorization, originals: originals, pool: pool, faces: faces, reading: reading,
                                     tagging: tagging)
        let sharedPurges = sharedStore.map {
            SharedPurges(store: $0, stateFolder: disk?.isHealthy == true ? config.cache.dir : nil,
                         interval: config.cache.shared.purgeInterval, clock: clock, wallClock: wallClock, logger: logger)
        }
        let sourcePurge = SourcePurge(store: store, shared: sharedTier, originals: originals, library: library, cluster: sharedPurges,
                                      cdn: cdn)
        purgeFollower = sharedPurges.map { PurgeFollower(purges: $0, apply: sourcePurge.apply, clock: clock, logger: logger) }
        purge = config.admin.token.isEmpty ? nil : PurgeRoute(token: Array(config.admin.token.utf8), purge: sourcePurge, pool: pool)
        picsum = catalogs.map {
            PicsumRoute(signer: signer, authorization: authorization, catalogs: $0, answers: answers,
                        defaults: parser.defaults, links: links, pool: pool)
        }
    }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let route = Route(path: request.path)
        responder.tag = route.rawValue
        if route == .server {
            // The parser lets `*` through for OPTIONS only (RFC 9110 §9.3.7): what the server allows.
            var headers = HTTPHeaders()
            headers.add(.allow, purge == nil ? "GET, HEAD" : "GET, HEAD, POST")
            return responder.respond(HTTPResponse(status: .ok, headers: headers))
        }
        if route == .purge && purge == nil || route.isPicsum && picsum == nil {
            return responder.respond(NoRoute(path: String(request.path)).response)
        }
        // Each route serves its methods (GET and HEAD for all but purge); a path no route
        // serves is 404 whatever the method.
        if route != .notFound, !route.allows(request.method) {
            return responder.respond(MethodNotAllowed(method: request.method.token, allowed: route.methods).response)
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
        case .imageInfo: imageInfo.handle(request, responder: responder)
        case .remoteInfo: remoteInfo.handle(request, responder: responder)
        case .purge: purge?.handle(request, responder: responder)
        case .openAPI: responder.respond(OpenAPIDocument.response(to: request))
        case .picsumImage, .picsumRedirect, .picsumInfo, .picsumList: picsum?.handle(request, route: route, responder: responder)
        }
    }

    /// What runs beside the requests, started before the first is served: the disk tier's
    /// index of its entries, and the purges other replicas published (those of while this
    /// replica was down applied first, then followed).
    public func start() {
        disk?.startIndexing()
        purgeFollower?.start()
    }

    /// While draining, /health answers 503 so load balancers stop sending traffic.
    public func beginDraining() {
        drain.begin()
        purgeFollower?.stop()
    }

    var pool: WorkerPool { thumbnails.pool }
}
