import Cache
import Clocks
import HTTP
import Imaging
import Logging
import WireCoding

/// Remote originals: fetched once for all the sizes asked of them, kept in the originals
/// store (keyed by URL) with their version, used as they are within `origins.ttl`,
/// revalidated with a conditional request after it (a 304 keeps them), and served stale,
/// with a log line and a metric, when the origin fails. Each origin host has its
/// `StoreHealth`: after a failure (a timeout included) or while a request to it waits more
/// than a second, the next ones are not sent but answered at once (stale, else 503).
package final class RemoteOriginals: Sendable {
    package enum Failure: Error, Sendable {
        case fetch(OriginFetcher.Failure)
        case notAnImage
        /// The origin's host failed or is slow: nothing is asked of it for a moment (503).
        case originUnavailable(String)
    }

    /// An original and the tier it came from without asking the origin (within
    /// `origins.ttl`); nil when the origin was asked (fetched, revalidated, or failing with a
    /// stale copy served).
    package typealias Found = (original: OriginalStore.Original, tier: CacheTier?)

    package let fetcher: OriginFetcher
    private let store: OriginalStore
    private let ttl: Double
    private let logger: Logger
    /// The version of each URL and when it was last fetched or revalidated, in this process:
    /// what a hit needs, without the bytes.
    private let checked = SharedLRUCache<String, (version: SourceVersion, at: Double)>(capacity: 100_000)
    private let flights = SingleFlight<Result<Found, Failure>>()
    /// Each origin host's health, by host name.
    private let hosts = SharedLRUCache<String, StoreHealth>(capacity: 4096)
    private let clock: any MonotonicClock
    package let fetches = Counter()
    package let errors = Counter()
    package let staleServed = Counter()
    private let metrics: ThumbdMetrics

    package init(fetcher: OriginFetcher, store: OriginalStore, ttl: Double, clock: any MonotonicClock, logger: Logger,
         metrics: ThumbdMetrics) {
        self.fetcher = fetcher
        self.clock = clock
        self.store = store
        self.ttl = ttl
        self.logger = logger
        self.metrics = metrics
    }

    /// Requests that waited for a fetch already under way instead of fetching again.
    package var sharedFetches: Int { flights.joined.count }

    /// Forgets `url`: its original leaves both tiers and its freshness is dropped, so the
    /// next request fetches it again. Returns the entries removed. Blocking.
    package func forget(_ url: String) -> Int {
        checked.remove(url)
        return store.remove(.remote(url))
    }

    /// The version of `url` while it is fresh (known without a fetch): one table lookup, for
    /// the event loop's hit path.
    package func freshVersion(_ url: String) -> SourceVersion? {
        guard let known = checked.get(url), clock.now() - known.at < ttl else { return nil }
        return known.version
    }

    /// The version last fetched or revalidated of `url`, however old.
    package func lastVersion(_ url: String) -> SourceVersion? { checked.get(url)?.version }

    /// The original for `url`, fetching or revalidating when needed. Blocking.
    package func original(_ url: String) -> Result<Found, Failure> {
        flights.run(url) { load(url) }
    }

    private func load(_ url: String) -> Result<Found, Failure> {
        let now = clock.now()
        let found = store.get(.remote(url))
        if let found, let known = checked.get(url), now - known.at < ttl, known.version == found.original.version {
            return .success((found.original, found.tier))
        }
        let previous = found?.original
        let health = health(of: url)
        let ticket: StoreHealth.Ticket
        switch health.admit() {
        case .success(let admitted): ticket = admitted
        case .failure(let refusal):
            guard let previous else { return .failure(.originUnavailable(refusal.reason)) }
            staleServed.increment()
            return .success((previous, nil))
        }
        fetches.increment()
        let started = clock.now()
        var outcome = "ok"
        var unavailable = false
        defer {
            metrics.recordOriginFetch(result: outcome, seconds: clock.now() - started)
            health.finished(ticket, failed: unavailable)
        }
        do {
            let response = try fetcher.fetch(url, ifNoneMatch: previous?.originETag,
                                             ifModifiedSince: previous.flatMap { $0.version.lastModified > 0 ? HTTPDate.format($0.version.lastModified) : nil })
            if response.status == 304, let previous {
                outcome = "not_modified"
                checked.put(url, (previous.version, now), cost: 1)
                return .success((previous, nil))
            }
            guard let format = ImageFormat.sniff(response.body) else {
                outcome = "not_an_image"
                errors.increment()
                return .failure(.notAnImage)
            }
            let lastModified = response.lastModified.flatMap { HTTPDate.parse($0) } ?? 0
            let version = SourceVersion(tag: Self.versionTag(etag: response.etag, lastModified: lastModified, body: response.body),
                                        format: format, lastModified: lastModified, byteCount: response.body.count)
            let original = OriginalStore.Original(bytes: response.body, version: version)
            store.put(.remote(url), original)
            checked.put(url, (version, now), cost: 1)
            return .success((original, nil))
        } catch {
            outcome = Self.label(error)
            errors.increment()
            unavailable = Self.staleAllowed(after: error)
            if let previous, Self.staleAllowed(after: error) {
                staleServed.increment()
                logger.warning("origin failed (\(error)); serving the stale copy of \(url)")
                return .success((previous, nil))
            }
            return .failure(.fetch(error))
        }
    }

    /// The health of `url`'s host (one per host, made when first asked).
    private func health(of url: String) -> StoreHealth {
        let host = (try? OriginFetcher.host(of: url)) ?? url
        if let known = hosts.get(host) { return known }
        let made = StoreHealth(clock: clock)
        hosts.put(host, made, cost: 1)
        return hosts.get(host) ?? made
    }

    /// The origin's version of an original, worked out once when it is fetched: its ETag, else
    /// its Last-Modified, else a checksum of the bytes. Variant keys and ETags are made from it.
    package static func versionTag(etag: String?, lastModified: Int, body: [UInt8]) -> String {
        if let etag, !etag.isEmpty { return "e" + etag }
        if lastModified > 0 { return "m\(lastModified)" }
        return "c\(String(CRC32C.checksum(body), radix: 16))-\(body.count)"
    }

    package static func label(_ error: OriginFetcher.Failure) -> String {
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
    package static func staleAllowed(after error: OriginFetcher.Failure) -> Bool {
        switch error {
        case .timeout, .connect: true
        case .status(let code): code >= 500
        default: false
        }
    }
}
