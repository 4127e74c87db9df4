import HTTP
import Logging
import ThumbdProtocol

/// A library in an S3 bucket (`library.root: s3://BUCKET/PREFIX`): originals passed through
/// from the store with the client's range and conditions (`S3Passthrough`), thumbnails of
/// originals fetched once into the originals tier and keyed by the object's ETag
/// (`S3Source`), the listing from ListObjectsV2 (`S3Catalog`), kept for `library.s3.ttl`.
/// Paths follow the folder library's rules, and a key is the prefix and the path, so no key
/// outside the prefix can be named.
struct S3Library: LibraryBackend {
    enum Defaults {
        /// How long a version the store gave is used without asking again.
        static let ttl = 60.0
    }

    let location: S3Location
    let objects: S3Objects
    let index: LibraryIndex
    let passthrough: S3Passthrough
    let pool: WorkerPool
    let clock: any MonotonicClock
    let s3Watermarks: S3Watermarks

    var watermarks: any WatermarkImages { s3Watermarks }

    init(location: S3Location, config: ThumbdConfig, store: OriginalStore, pool: WorkerPool, fields: ImageFields,
         metrics: ThumbdMetrics, clock: any MonotonicClock, logger: Logger) {
        self.location = location
        let client = Self.client(location, config: config).recording(to: metrics)
        objects = S3Objects(client: client, store: store, ttl: config.library.s3.ttl, maxBytes: config.limits.maxSourceBytes,
                            clock: clock, logger: logger)
        index = LibraryIndex(catalog: S3Catalog(objects: objects, pageSize: config.library.s3.listPageSize), clock: clock, maxAge: config.library.s3.ttl)
        passthrough = S3Passthrough(objects: objects, fields: fields)
        self.pool = pool
        self.clock = clock
        s3Watermarks = S3Watermarks(location: location, objects: objects, pool: pool)
    }

    /// The client `config` describes for `location` (the configuration was checked on load).
    static func client(_ location: S3Location, config: ThumbdConfig) -> S3Client {
        let s3 = config.library.s3
        return S3Client(location: location, endpoint: S3Endpoint(endpoint: s3.endpoint, region: s3.region, pathStyle: s3.pathStyle)!,
                        region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey,
                        connectTimeout: config.origins.connectTimeout, timeout: config.origins.timeout)
    }

    /// What `serve` does before it listens: one signed listing. Wrong keys, a missing bucket
    /// or permission stop the start with S3's error code; a store that cannot be reached does
    /// not (thumbd serves, and recovers when it answers).
    static func checkAccess(_ location: S3Location, config: ThumbdConfig, logger: Logger) throws(StartError) {
        let client = client(location, config: config)
        do throws(S3Error) {
            try client.checkAccess()
            logger.info("S3 library \(location) at \(client.endpoint.description) (region \(client.region))")
        } catch .unavailable(let why) {
            logger.warning("S3 library \(location): the store cannot be reached now (\(why)); serving, and asking again on each request")
        } catch {
            throw StartError(location: location, endpoint: client.endpoint.description, error: error)
        }
    }

    /// The store refused the start-up check.
    struct StartError: Error, CustomStringConvertible {
        let location: S3Location
        let endpoint: String
        let error: S3Error

        var description: String {
            switch error {
            case .refused(let status, let code):
                "the S3 library \(location) cannot be used: the store at \(endpoint) answered \(status) \(code) for bucket \(location.bucket)"
            default:
                "the S3 library \(location) cannot be used: \(error) (bucket \(location.bucket) at \(endpoint))"
            }
        }
    }

    func answer(_ request: HTTPRequest, path: LibraryPath, transform: TransformRequest?, thumbnails: ThumbnailEndpoint,
                memo: IdentityMemo?, finish: ThumbnailEndpoint.Finish?, responder: HTTPResponder) throws {
        let key = location.key(path)
        guard let transform else {
            let accepted = pool.submit { [passthrough] in
                guard !responder.isCancelled else { return }
                responder.respond(passthrough.response(to: request, key: key))
            }
            if !accepted { throw Overloaded() }
            return
        }
        let source = S3Source(key: key, objects: objects, clock: clock)
        guard let mark = transform.options.watermark?.path, s3Watermarks.needsFetch(mark) else {
            return try thumbnails.answer(request, transform: transform, of: source, responder: responder, memo: memo, finish: finish)
        }
        // A watermark never seen is fetched on a worker before the answer can name its version.
        let accepted = pool.submit { [s3Watermarks] in
            guard !responder.isCancelled else { return }
            do {
                if let failure = s3Watermarks.prepare(mark) { throw failure }
                try thumbnails.answer(request, transform: transform, of: source, responder: responder, memo: memo, finish: finish)
            } catch {
                responder.respond(Problems.response(for: error))
            }
        }
        if !accepted { throw Overloaded() }
    }

    func info(_ path: LibraryPath) throws -> LibraryImageInfo {
        let key = location.key(path)
        if let version = try objects.currentVersion(key).get(), let facts = index.knownFacts(of: path.value, version: version.tag) {
            return Self.info(facts, version)
        }
        let original = try objects.original(key).get().original
        guard let format = original.version.format else { throw S3Error.notAnImage }
        let facts = try index.readFacts(of: path.value, version: original.version.tag, tag: original.version.tag,
                                        bytes: original.bytes, format: format)
        return Self.info(facts, original.version)
    }

    private static func info(_ facts: ImageFacts, _ version: SourceVersion) -> LibraryImageInfo {
        LibraryImageInfo(facts: facts, originalETag: S3Objects.etag(of: version) ?? "",
                         lastModified: ThumbnailPresenter.timestamp(version.lastModified))
    }

    func sourceName(_ path: LibraryPath) -> SourceName { objects.sourceName(location.key(path)) }

    func forget(_ path: LibraryPath) -> Int { objects.forget(location.key(path)) }
}
