import Locking
import ThumbdProtocol

/// Watermark images from the bucket. The cache key needs a watermark's version on the event
/// loop, where the store is never asked: the version last known is used, and once it is older
/// than the ttl one HEAD is sent from a worker (so a replaced watermark shows within the ttl
/// and one request). A watermark never seen is fetched first, on a worker (`prepare`).
package struct S3Watermarks: WatermarkImages {
    package let location: S3Location
    package let objects: S3Objects
    package let pool: WorkerPool
    /// Keys whose version is being checked, so a busy watermark is asked about once.
    package let checking = Locked(Set<String>())

    package func watermark(at path: String) throws(ParameterError) -> WatermarkFile {
        guard let key = try? location.key(LibraryPath(decoded: path)), let version = objects.lastVersion(key),
              version.format != nil else {
            throw ParameterError(parameter: "wm", detail: "wm names no image of the library: '\(path)'")
        }
        if objects.freshVersion(key) == nil { refresh(key) }
        return WatermarkFile(version: "s3" + version.tag.text, bytes: { [objects] in
            try? objects.original(key).get().original.bytes
        })
    }

    /// Nil when `path` names a watermark already seen (or no valid path: `watermark(at:)` says
    /// so); else fetches it, blocking, and returns the store's failure other than a missing key.
    package func prepare(_ path: String) -> S3Error? {
        guard let key = unseenKey(path) else { return nil }
        if case .failure(let error) = objects.original(key), error != .notFound { return error }
        return nil
    }

    /// Whether `path` names a watermark not seen yet, which `prepare` must fetch off the event loop.
    package func needsFetch(_ path: String) -> Bool { unseenKey(path) != nil }

    /// The key of `path` when it is valid and its object was never fetched (no format known).
    private func unseenKey(_ path: String) -> String? {
        guard let key = try? location.key(LibraryPath(decoded: path)), objects.lastVersion(key)?.format == nil else { return nil }
        return key
    }

    private func refresh(_ key: String) {
        guard checking.withLock({ $0.insert(key).inserted }) else { return }
        let submitted = pool.submit { [objects, checking] in
            // A changed object is known by its ETag alone until its bytes tell its format.
            if case .success(nil) = objects.currentVersion(key) { _ = objects.original(key) }
            checking.withLock { _ = $0.remove(key) }
        }
        if !submitted { checking.withLock { _ = $0.remove(key) } }
    }

    package init(location: S3Location, objects: S3Objects, pool: WorkerPool) {
        self.location = location
        self.objects = objects
        self.pool = pool
    }
}
