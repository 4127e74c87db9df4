import Cache
import Clocks
import HTTP
import Imaging
import Locking
import Logging

/// The bucket's objects as thumbd keeps them. The version of each key and when the store last
/// told it (a HEAD, a GET or a listing), used without asking within `library.s3.ttl`; the
/// originals, in the originals store, fetched once for every size asked of them meanwhile;
/// and, when the store is down or slow, what was last known, served until it answers again:
/// a request that finds it down (a timeout included) starts a pause during which nothing is
/// asked of it, and one still waiting after a second makes it slow (`StoreHealth`), so each
/// request does not wait out a timeout of its own.
package final class S3Objects: Sendable {
    /// An original and the tier it came from; the tier is nil when the store sent it just now.
    package typealias Found = (original: OriginalStore.Original, tier: CacheTier?)

    package struct Known: Sendable {
        package var version: SourceVersion
        /// When the store last confirmed it.
        package var at: Double

        package init(version: SourceVersion, at: Double) {
            self.version = version
            self.at = at
        }
    }

    /// How long nothing is asked of a store that just failed.
    package static let pause = 1.0

    package let client: S3Client
    package let ttl: Double
    package let maxBytes: Int
    private let store: OriginalStore
    private let clock: any MonotonicClock
    private let logger: Logger
    private let known = SharedLRUCache<String, Known>(capacity: 100_000)
    private let checks = SingleFlight<Result<SourceVersion?, S3Error>>()
    private let fetches = SingleFlight<Result<Found, S3Error>>()
    package let health: StoreHealth
    /// Answers made from what was kept while the store was down.
    package let staleServed = Counter()

    package init(client: S3Client, store: OriginalStore, ttl: Double, maxBytes: Int, clock: any MonotonicClock, logger: Logger) {
        self.client = client
        self.store = store
        self.ttl = ttl
        self.maxBytes = maxBytes
        self.clock = clock
        self.logger = logger
        health = StoreHealth(pause: Self.pause, clock: clock)
    }

    /// A version's tag: `e` and the ETag, as remote originals have (`OriginalStore.Original.originETag`).
    package static func versionTag(etag: String) -> String { "e" + etag }

    /// The ETag a version tag holds.
    package static func etag(of version: SourceVersion) -> String? {
        version.tag.hasPrefix("e") ? String(version.tag.dropFirst()) : nil
    }

    package func sourceName(_ key: String) -> SourceName { .s3(bucket: client.location.bucket, key: key) }

    /// The version of `key` while it is fresh and its format known: one table lookup, for the
    /// event loop's hit path.
    package func freshVersion(_ key: String) -> SourceVersion? {
        guard let entry = known.get(key), entry.version.format != nil, clock.now() - entry.at < ttl else { return nil }
        return entry.version
    }

    /// The version last known of `key`, however old.
    package func lastVersion(_ key: String) -> SourceVersion? { known.get(key)?.version }

    /// Takes `version` as the store's word now. A version without a format (from a listing or a
    /// HEAD) keeps the format known for the same ETag.
    package func remember(_ key: String, _ version: SourceVersion) {
        var version = version
        if version.format == nil, let previous = known.get(key)?.version, previous.tag == version.tag {
            version.format = previous.format
        }
        known.put(key, Known(version: version, at: clock.now()), cost: 1)
    }

    /// Forgets `key`: its version and its original (both tiers). Returns the entries removed. Blocking.
    package func forget(_ key: String) -> Int {
        known.remove(key)
        return store.remove(sourceName(key))
    }

    /// The version the store has now, as cheaply as it can be told: the one known while it is
    /// fresh; after the ttl a HEAD, whose ETag, when it is the one known, confirms that version
    /// (and its format). Nil when only the bytes can tell (a new or changed object: the caller
    /// fetches them). While the store is down, the version last known. Blocking.
    package func currentVersion(_ key: String) -> Result<SourceVersion?, S3Error> {
        guard let last = known.get(key), last.version.format != nil else { return .success(nil) }
        if clock.now() - last.at < ttl { return .success(last.version) }
        return checks.run(key) {
            switch object(key, head: true) {
            case .success(let response) where response.status == 200:
                guard let version = response.version(format: nil) else { return .failure(.unavailable("the store sent no ETag")) }
                remember(key, version)
                return .success(version.tag == last.version.tag ? lastVersion(key) : nil)
            case .success(let response):
                return failed(key, response.failure, stale: last.version)
            case .failure(let error):
                return failed(key, error, stale: last.version)
            }
        }
    }

    /// The original of `key` at the version the store has now: from the originals store when
    /// it holds that version (confirmed with a HEAD once the ttl has passed), else fetched, once
    /// for every request that asks meanwhile. While the store is down, the original kept. Blocking.
    package func original(_ key: String) -> Result<Found, S3Error> {
        fetches.run(key) { load(key) }
    }

    private func load(_ key: String) -> Result<Found, S3Error> {
        let name = sourceName(key)
        let kept = store.get(name)
        if let kept {
            let tag = kept.original.version.tag
            if let entry = known.get(key), clock.now() - entry.at < ttl {
                if entry.version.tag == tag { return .success(kept) }
            } else {
                switch object(key, head: true) {
                case .success(let response) where response.status == 200:
                    if let version = response.version(format: kept.original.version.format), version.tag == tag {
                        remember(key, version)
                        return .success(kept)
                    }
                case .success(let response):
                    return failed(key, response.failure, stale: (kept.original, nil))
                case .failure(let error):
                    return failed(key, error, stale: (kept.original, nil))
                }
            }
        }
        switch object(key) {
        case .success(let response) where response.status == 200:
            guard let format = ImageFormat.sniff(response.body) else { return .failure(.notAnImage) }
            guard let version = response.version(format: format) else { return .failure(.unavailable("the store sent no ETag")) }
            let original = OriginalStore.Original(bytes: response.body, version: version)
            store.put(name, original)
            remember(key, version)
            return .success((original, nil))
        case .success(let response):
            return failed(key, response.failure, stale: nil)
        case .failure(let error):
            return failed(key, error, stale: nil)
        }
    }

    /// Keeps a whole object fetched for another reason (an original downloaded as it is) as
    /// the original thumbnails are made from, the first time this version is seen: a version
    /// already known with its format was fetched, and kept, before.
    package func keep(_ key: String, bytes: [UInt8], version: SourceVersion) {
        guard version.format != nil else { return }
        if let previous = known.get(key)?.version, previous.tag == version.tag, previous.format != nil {
            return remember(key, version)
        }
        store.put(sourceName(key), OriginalStore.Original(bytes: bytes, version: version))
        remember(key, version)
    }

    /// The original kept of `key`, whatever its version (for answers while the store is down).
    package func kept(_ key: String) -> Found? { store.get(sourceName(key)) }

    /// After a failure: a missing key is forgotten; while the store is down, `stale` (when
    /// there is one) stands in; anything else is the failure.
    private func failed<T>(_ key: String, _ error: S3Error, stale: T?) -> Result<T, S3Error> {
        if error == .notFound { known.remove(key) }
        if error.isUnavailable, let stale {
            staleServed.increment()
            return .success(stale)
        }
        return .failure(error)
    }

    /// One request for `key` (HEAD or GET, with `fields`), unless the store is paused; a 5xx
    /// is a failure (the store is down), other statuses are answers.
    package func object(_ key: String, head: Bool = false, fields: [(HTTPFieldName, String)] = []) -> Result<S3Response, S3Error> {
        ask { () throws(S3Error) in
            let response = try client.object(key, head: head, fields: fields, maxBytes: maxBytes)
            guard response.status < 500 else { throw response.failure }
            return response
        }
    }

    /// Runs one request unless the store is paused after a failure or slow (`StoreHealth`). A
    /// failure that says the store is down starts the pause and, the first time, a log line;
    /// the first answer after one ends the outage, with a log line too.
    package func ask<T: Sendable>(_ request: () throws(S3Error) -> T) -> Result<T, S3Error> {
        let ticket: StoreHealth.Ticket
        switch health.admit() {
        case .success(let admitted): ticket = admitted
        case .failure(let refusal): return .failure(.unavailable("the store is not answering: \(refusal.reason)"))
        }
        do throws(S3Error) {
            let value = try request()
            if case .cameBack(let seconds) = health.finished(ticket, failed: false) {
                logger.notice("the S3 store \(client.endpoint.description) answers again after \(Int(seconds)) s")
            }
            return .success(value)
        } catch {
            if health.finished(ticket, failed: error.isUnavailable) == .wentDown {
                logger.warning("the S3 store \(client.endpoint.description) is unavailable (\(error)); serving what is cached until it answers")
            }
            return .failure(error)
        }
    }
}
