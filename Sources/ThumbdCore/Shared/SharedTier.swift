import Cache
import Dispatch
import Locking

/// The third cache tier: thumbnails in the object store, shared by every replica. An object
/// holds one variant in the disk tier's entry form (`CacheEntryCodec`: the full key, content
/// type, ETag, Last-Modified and checksums of header and body), so a torn, truncated or
/// altered object, or one of another key, is never served. Objects are named
/// `PREFIX/v1/<hash of the source>/<hash of the key>` (`SharedLayout`): a purge lists one source's folder.
/// Reads run on the worker making a miss; writes go behind the answer, from a bounded queue
/// (dropped and counted when full). A store that fails is skipped (`SharedStore`).
package final class SharedTier: SharedVariantTier {
    package enum Defaults {
        /// Writes waiting at most; more are dropped.
        package static let queueLimit = 256
        /// Bytes of the writes waiting at most (each holds its variant's bytes).
        package static let queueBytes = 32 << 20
        /// Objects larger are not read (a thumbnail is far smaller).
        package static let maxObjectBytes = 64 << 20
    }

    /// Counts for the metrics.
    package struct Counters: Sendable {
        package let hits = Counter()
        package let misses = Counter()
        package let writes = Counter()
        /// Writes dropped: the queue was full, or the store skipped.
        package let drops = Counter()
        /// Requests that failed (no answer, 5xx, an object that did not decode).
        package let errors = Counter()
        /// Lookups not asked: the store is down.
        package let skips = Counter()
        /// Requests the store refused (401, 403: keys, bucket policy): an operator's to mend,
        /// never taken for an outage.
        package let denials = Counter()
        package let corrupt = Counter()
    }

    package let store: SharedStore
    package let counters = Counters()
    private let writes = DispatchQueue(label: "thumbd.shared.writes")
    private let queued = Locked((count: 0, bytes: 0))
    private let queueLimit: Int
    private let queueBytes: Int

    package init(store: SharedStore, queueLimit: Int = Defaults.queueLimit, queueBytes: Int = Defaults.queueBytes) {
        self.store = store
        self.queueLimit = queueLimit
        self.queueBytes = queueBytes
    }

    /// The object holding `key`'s variant; `sourcePrefix` is what every key of its source starts with.
    package func objectKey(_ key: CacheKey, sourcePrefix: String) -> String {
        store.layout.key(key.hash, in: SharedLayout.variants(ofSourcePrefix: sourcePrefix))
    }

    /// The variant the tier holds for `key`, or nil (absent, unreadable, or the store skipped).
    /// Blocking, for at most the store's timeout: a worker calls it.
    package func variant(_ key: CacheKey, sourcePrefix: String) -> CachedVariant? {
        let objectKey = objectKey(key, sourcePrefix: sourcePrefix)
        switch store.ask(objectKey, { client throws(S3Error) in try client.object(objectKey, maxBytes: Defaults.maxObjectBytes) }) {
        case .skipped:
            counters.skips.increment()
            return nil
        case .failed(.notFound):
            counters.misses.increment()
            return nil
        case .failed:
            counters.errors.increment()
            return nil
        case .answered(let response) where response.status == 200:
            switch CacheEntryCodec.decode(response.body, expecting: key) {
            case .success(let variant):
                counters.hits.increment()
                return variant
            case .failure:
                // Never served; the next write of this key replaces it.
                counters.corrupt.increment()
                counters.errors.increment()
                return nil
            }
        case .answered(let response):
            if response.status == 404 { counters.misses.increment() } else { counted(response) }
            return nil
        }
    }

    /// Stores `variant` in the background, after the answer; dropped (and counted) when the
    /// queue is full.
    package func write(_ key: CacheKey, sourcePrefix: String, _ variant: CachedVariant) {
        let size = variant.bytes.count
        let admitted = queued.withLock { q -> Bool in
            guard q.count < queueLimit, q.bytes + size <= queueBytes else { return false }
            q.count += 1
            q.bytes += size
            return true
        }
        guard admitted else { return counters.drops.increment() }
        let objectKey = objectKey(key, sourcePrefix: sourcePrefix)
        writes.async { [self] in
            defer { queued.withLock { $0.count -= 1; $0.bytes -= size } }
            let body = CacheEntryCodec.encode(key: key, variant: variant)
            switch store.ask(objectKey, { client throws(S3Error) in try client.put(objectKey, body: body) }) {
            case .answered(let response) where response.status == 200: counters.writes.increment()
            case .skipped: counters.drops.increment()
            case .answered(let response): counted(response)
            case .failed: counters.errors.increment()
            }
        }
    }

    /// Returns once every write queued before the call has been sent (tests, shutdown).
    package func flush() {
        writes.sync {}
    }

    /// An answer that is neither the object nor its absence: a denial, or another error.
    private func counted(_ response: S3Response) {
        counters.errors.increment()
        if response.isDenial { counters.denials.increment() }
    }

    /// Deletes every object of a source; returns how many went, or why they could not be
    /// listed or deleted (a denial, an outage). Blocking: a worker calls it.
    package func removeAll(sourcePrefix: String) -> Result<Int, S3Error> {
        let objects: [S3ListPage.Object]
        switch store.list(SharedLayout.variants(ofSourcePrefix: sourcePrefix)) {
        case .success(let listed): objects = listed
        case .failure(let error): return .failure(error)
        }
        var removed = 0
        for object in objects {
            switch store.ask(object.key, { client throws(S3Error) in try client.delete(object.key) }) {
            case .answered(let response) where response.status == 204 || response.status == 200: removed += 1
            case .answered(let response): return .failure(response.failure)
            case .failed(let error): return .failure(error)
            case .skipped: return .failure(SharedStore.down)
            }
        }
        return .success(removed)
    }
}
