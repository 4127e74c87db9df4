import Cache
import CSystem
import Foundation
import HTTP
import Imaging
import Logging

/// Remote originals: fetched once for all the sizes asked of them, kept in the cache tiers
/// (keyed by URL) with the origin's validators, used as they are within `origins.ttl`,
/// revalidated with a conditional request after it (a 304 keeps them), and served stale,
/// with a log line and a metric, when the origin fails.
final class RemoteOriginals: Sendable {
    struct Original: Sendable {
        var bytes: [UInt8]
        /// The origin version: its ETag, else its Last-Modified, else a checksum of the bytes.
        var version: String
        var format: ImageFormat?
        var lastModified: Int
        /// The tier it came from without asking the origin (within `origins.ttl`); nil when
        /// the origin was asked (fetched, revalidated, or failing with a stale copy served).
        var tier: VariantStore.Tier? = nil
    }

    enum Failure: Error, Sendable {
        case fetch(OriginFetcher.Failure)
        case notAnImage
    }

    let fetcher: OriginFetcher
    private let store: VariantStore
    private let ttl: Double
    private let logger: Logger
    /// When each URL was last fetched or revalidated, in this process.
    private let checked = SharedLRUCache<String, Double>(capacity: 100_000)
    private let flights = SingleFlight<Result<Original, Failure>>()
    private let clock: any MonotonicClock
    let fetches = Counter()
    let errors = Counter()
    let staleServed = Counter()
    private let metrics: ThumbdMetrics

    init(fetcher: OriginFetcher, store: VariantStore, ttl: Double, clock: any MonotonicClock, logger: Logger,
         metrics: ThumbdMetrics) {
        self.fetcher = fetcher
        self.clock = clock
        self.store = store
        self.ttl = ttl
        self.logger = logger
        self.metrics = metrics
    }

    /// Requests that waited for a fetch already under way instead of fetching again.
    var sharedFetches: Int { flights.joined.count }

    static func key(_ url: String) -> CacheKey { CacheKey("src|" + SourceName.escaped(url)) }

    /// Forgets `url`: its original leaves both tiers and its freshness is dropped, so the
    /// next request fetches it again. Returns the entries removed.
    func forget(_ url: String, from store: VariantStore) -> Int {
        checked.remove(url)
        return store.purge(keyText: Self.key(url).text)
    }

    /// The original for `url`, fetching or revalidating when needed. Blocking.
    func original(_ url: String) -> Result<Original, Failure> {
        flights.run(url) { load(url) }
    }

    private func cached(_ url: String) -> (variant: CachedVariant, tier: VariantStore.Tier)? {
        store.variant(Self.key(url))
    }

    private func load(_ url: String) -> Result<Original, Failure> {
        let now = clock.now()
        let found = cached(url)
        let previous = found?.variant
        if let found, let at = checked.get(url), now - at < ttl {
            var original = Self.original(found.variant)
            original.tier = found.tier
            return .success(original)
        }
        fetches.increment()
        let started = clock.now()
        var outcome = "ok"
        defer { metrics.recordOriginFetch(result: outcome, seconds: clock.now() - started) }
        do {
            let response = try fetcher.fetch(url, ifNoneMatch: previous.flatMap { $0.etag.isEmpty ? nil : $0.etag },
                                             ifModifiedSince: previous.flatMap { $0.lastModified > 0 ? HTTPDate.format($0.lastModified) : nil })
            if response.status == 304, let previous {
                outcome = "not_modified"
                checked.put(url, now, cost: 1)
                return .success(Self.original(previous))
            }
            guard let format = ImageFormat.sniff(response.body) else {
                outcome = "not_an_image"
                errors.increment()
                return .failure(.notAnImage)
            }
            let variant = CachedVariant(bytes: response.body, contentType: format.mediaType, etag: response.etag ?? "",
                                        lastModified: response.lastModified.flatMap { HTTPDate.parse($0) } ?? 0)
            store.store(Self.key(url), variant)
            checked.put(url, now, cost: 1)
            return .success(Self.original(variant))
        } catch {
            outcome = Self.label(error)
            errors.increment()
            if let previous, Self.staleAllowed(after: error) {
                staleServed.increment()
                logger.warning("origin failed (\(error)); serving the stale copy of \(url)")
                return .success(Self.original(previous))
            }
            return .failure(.fetch(error))
        }
    }

    static func label(_ error: OriginFetcher.Failure) -> String {
        switch error {
        case .badURL: "bad_url"
        case .notAllowed: "not_allowed"
        case .blockedAddress: "blocked_address"
        case .timeout: "timeout"
        case .tooLarge: "too_large"
        case .connect: "connect"
        case .tooManyRedirects: "too_many_redirects"
        case .status: "status"
        }
    }

    /// A stale copy stands in when the origin is unreachable or failing, not when it
    /// answers that the image is gone or the request itself is refused.
    static func staleAllowed(after error: OriginFetcher.Failure) -> Bool {
        switch error {
        case .timeout, .connect: true
        case .status(let code): code >= 500
        default: false
        }
    }

    static func original(_ variant: CachedVariant) -> Original {
        let version: String
        if !variant.etag.isEmpty {
            version = "e" + variant.etag
        } else if variant.lastModified > 0 {
            version = "m\(variant.lastModified)"
        } else {
            let crc = variant.bytes.withUnsafeBytes { csys_crc32c(0, $0.baseAddress, $0.count) }
            version = "c\(String(crc, radix: 16))-\(variant.bytes.count)"
        }
        return Original(bytes: variant.bytes, version: version, format: ImageFormat.sniff(variant.bytes),
                        lastModified: variant.lastModified)
    }

    /// For the event-loop fast path: the version and format of `url` when it is fresh and
    /// cached in memory.
    func fresh(_ url: String) -> (version: String, format: ImageFormat?, lastModified: Int)? {
        guard let at = checked.get(url), clock.now() - at < ttl, let variant = store.memoryVariant(Self.key(url)) else { return nil }
        let original = Self.original(variant)
        return (original.version, original.format, original.lastModified)
    }
}
