import Clocks
import HTTP
import Logging
import ThumbdProtocol
import Video

/// A library in an S3 bucket (`library.root: s3://BUCKET/PREFIX`): originals passed through
/// from the store with the client's range and conditions (`S3Passthrough`), thumbnails of
/// originals fetched once into the originals tier and keyed by the object's ETag
/// (`S3Source`), the listing from ListObjectsV2 (`S3Catalog`), kept for `library.s3.ttl`.
/// Paths follow the folder library's rules, and a key is the prefix and the path, so no key
/// outside the prefix can be named.
package struct S3Library: LibraryBackend {
    package enum Defaults {
        /// How long a version the store gave is used without asking again.
        package static let ttl = 60.0
    }

    package let location: S3Location
    package let objects: S3Objects
    package let index: LibraryIndex
    package let pool: WorkerPool
    package let clock: any MonotonicClock
    package let s3Watermarks: S3Watermarks

    package var watermarks: any WatermarkImages { s3Watermarks }

    /// `client` asks the store (its endpoint, keys and timeouts from the configuration); `ttl`
    /// is how long a version (and the listing) is used without asking again.
    package init(location: S3Location, client: S3Client, ttl: Double, maxSourceBytes: Int, listPageSize: Int,
                 store: OriginalStore, pool: WorkerPool, clock: any MonotonicClock, logger: Logger,
                 reading: FactReading = FactReading()) {
        self.location = location
        objects = S3Objects(store: S3Bucket(client: client, maxBytes: maxSourceBytes), originals: store, ttl: ttl, clock: clock,
                             logger: logger)
        index = LibraryIndex(catalog: S3Catalog(objects: objects, pageSize: listPageSize), clock: clock, maxAge: ttl,
                             reading: reading)
        self.pool = pool
        self.clock = clock
        s3Watermarks = S3Watermarks(location: location, objects: objects, pool: pool)
    }

    /// What `serve` does before it listens: one signed listing. Wrong keys, a missing bucket
    /// or permission stop the start with S3's error code; a store that cannot be reached does
    /// not (thumbd serves, and recovers when it answers).
    package static func checkAccess(_ location: S3Location, client: S3Client, logger: Logger) throws(StartError) {
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
    package struct StartError: Error, CustomStringConvertible {
        package let location: S3Location
        package let endpoint: String
        package let error: S3Error

        package var description: String {
            switch error {
            case .refused(let status, let code):
                "the S3 library \(location) cannot be used: the store at \(endpoint) answered \(status) \(code) for bucket \(location.bucket)"
            default:
                "the S3 library \(location) cannot be used: \(error) (bucket \(location.bucket) at \(endpoint))"
            }
        }

        package init(location: S3Location, endpoint: String, error: S3Error) {
            self.location = location
            self.endpoint = endpoint
            self.error = error
        }
    }

    package func original(_ path: LibraryPath) throws -> LibraryOriginal {
        .object(S3Original(key: location.key(path), objects: objects))
    }

    package func source(_ path: LibraryPath, watermark: String?) throws -> ResolvedSource {
        let source = S3Source(key: location.key(path), objects: objects, clock: clock)
        // A watermark never seen is fetched on a worker before the answer can name its version.
        guard let watermark, s3Watermarks.needsFetch(watermark) else { return ResolvedSource(source: source, preparation: nil) }
        return ResolvedSource(source: source, preparation: { [s3Watermarks] in s3Watermarks.prepare(watermark) })
    }

    package func info(_ path: LibraryPath) throws -> LibraryImageInfo {
        let key = location.key(path)
        if let version = try objects.currentVersion(key).get(), let facts = index.knownFacts(of: path.value, version: version.tag.text) {
            return Self.info(facts, version)
        }
        // A video over the size limit (known as one, or refused whole): its facts come from the
        // ranges its poster needs.
        if let video = objects.videoReader(key) { return try videoInfo(path, video) }
        let found = objects.original(key)
        if case .failure(.tooLarge) = found, let video = objects.videoReader(key, asking: true) { return try videoInfo(path, video) }
        let original = try found.get().original
        guard let format = original.version.format else { throw S3Error.notAnImage }
        let facts = try index.readFacts(of: path.value, version: original.version.tag.text, tag: original.version.tag.text,
                                        content: SourceContent(bytes: original.bytes, format: format), bytes: Int64(original.bytes.count))
        return Self.info(facts, original.version)
    }

    private func videoInfo(_ path: LibraryPath, _ video: (reader: VideoReader, version: SourceVersion)) throws -> LibraryImageInfo {
        let facts = try index.readFacts(of: path.value, version: video.version.tag.text, tag: video.version.tag.text,
                                        content: .video(video.reader, video.version.format ?? .mp4), bytes: Int64(video.reader.length))
        return Self.info(facts, video.version)
    }

    private static func info(_ facts: ImageFacts, _ version: SourceVersion) -> LibraryImageInfo {
        LibraryImageInfo(facts: facts, originalETag: version.storeETag ?? "",
                         lastModified: version.lastModified > 0 ? Timestamp(seconds: version.lastModified) : nil)
    }

    package func sourceName(_ path: LibraryPath) -> SourceName { objects.sourceName(location.key(path)) }

    package func forget(_ path: LibraryPath) -> Int { objects.forget(location.key(path)) }
}
