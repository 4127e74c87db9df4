import Cache
import Clocks
import Logging

/// Originals from a store thumbd does not own (`OriginStore`: an HTTP origin, an S3 bucket),
/// kept the same way for every store. Each id's version and when the store last told it (a
/// fetch, a revalidation, a listing), used without asking within `ttl`; the originals in the
/// `OriginalStore`, fetched once for every request that asks meanwhile, and revalidated (a
/// conditional GET, a HEAD) once the ttl has passed. Every request goes through the store's
/// `StoreHealth`: once failures across requests say the store is down (timeouts, cut
/// transfers, refused connections, 5xx), nothing is asked of it until a probe finds it
/// answering, and what was kept stands in meanwhile (else the store's failure, a 503), so
/// requests do not each wait out a timeout.
package final class FetchedOriginals<Store: OriginStore>: Sendable {
    package typealias Failure = Store.Failure
    /// An original and the tier it came from; the tier is nil when the store sent it just now
    /// (or it stood in for a store that failed).
    package typealias Found = (original: OriginalStore.Original, tier: CacheTier?)

    package struct Known: Sendable {
        package var version: SourceVersion
        /// When the store last told it.
        package var at: Double
    }

    /// Seconds a client is told to wait (`Retry-After`) when the store is down: about when it
    /// is probed again.
    package static var pause: Double { 1.0 }

    package let store: Store
    package let ttl: Double
    private let originals: OriginalStore
    private let clock: any MonotonicClock
    private let logger: Logger
    private let known = SharedLRUCache<String, Known>(capacity: 100_000)
    private let checks = SingleFlight<Result<SourceVersion?, Failure>>()
    private let flights = SingleFlight<Result<Found, Failure>>()
    private let healths = SharedLRUCache<String, StoreHealth>(capacity: 4096)
    /// Answers made from what was kept while the store was down.
    package let staleServed = Counter()

    package init(store: Store, originals: OriginalStore, ttl: Double, clock: any MonotonicClock, logger: Logger) {
        self.store = store
        self.originals = originals
        self.ttl = ttl
        self.clock = clock
        self.logger = logger
    }

    /// Requests that waited for a fetch already under way instead of asking again.
    package var sharedFetches: Int { flights.joined.count }

    /// The version of `id` while it is fresh and its format known: one table lookup, for the
    /// event loop's hit path.
    package func freshVersion(_ id: String) -> SourceVersion? {
        guard let entry = known.get(id), entry.version.format != nil, clock.now() - entry.at < ttl else { return nil }
        return entry.version
    }

    /// The version last known of `id`, however old.
    package func lastVersion(_ id: String) -> SourceVersion? { known.get(id)?.version }

    /// Takes `version` as the store's word now. A version without a format (from a listing or a
    /// HEAD) keeps the format known for the same tag.
    package func remember(_ id: String, _ version: SourceVersion) {
        var version = version
        if version.format == nil, let previous = known.get(id)?.version, previous.tag == version.tag {
            version.format = previous.format
        }
        known.put(id, Known(version: version, at: clock.now()), cost: 1)
    }

    /// Forgets `id`: its version and its original (both tiers), so the next request asks the
    /// store again. Returns the entries removed. Blocking.
    package func forget(_ id: String) -> Int {
        known.remove(id)
        return originals.remove(store.sourceName(id))
    }

    /// The original kept of `id`, whatever its version (for answers while the store is down).
    package func kept(_ id: String) -> Found? { originals.get(store.sourceName(id)) }

    /// Keeps a whole original fetched for another reason (passed through as it is) as the
    /// one thumbnails are made from, the first time this version is seen.
    package func keep(_ id: String, bytes: [UInt8], version: SourceVersion) {
        guard version.format != nil else { return }
        if hasSeen(id, version) { return remember(id, version) }
        hold(id, bytes: bytes, version: version)
    }

    /// True when `version` of `id` was seen before with its format: its bytes were kept then,
    /// or are not worth keeping again.
    package func hasSeen(_ id: String, _ version: SourceVersion) -> Bool {
        guard let previous = known.get(id)?.version else { return false }
        return previous.tag == version.tag && previous.format != nil
    }

    /// Keeps a whole original of `version`, whatever was known of it (the caller asked
    /// `hasSeen` when its answer came, before its bytes).
    package func hold(_ id: String, bytes: [UInt8], version: SourceVersion) {
        originals.put(store.sourceName(id), OriginalStore.Original(bytes: bytes, version: version))
        remember(id, version)
    }

    /// The version the store has now, as cheaply as it can be told: the one known while it is
    /// fresh; after the ttl the store's revalidation, which confirms that version (and its
    /// format) or not. Nil when only the bytes can tell (a new or changed original: the caller
    /// fetches them). While the store is down, the version last known. Blocking.
    package func currentVersion(_ id: String) -> Result<SourceVersion?, Failure> {
        guard let last = known.get(id), last.version.format != nil else { return .success(nil) }
        if clock.now() - last.at < ttl { return .success(last.version) }
        return checks.run(id) {
            switch ask(id, { (answered) throws(Failure) in try store.revalidate(id, version: last.version, answered: answered) }) {
            case .success(.unchanged(let version)):
                remember(id, version)
                return .success(lastVersion(id))
            case .success(.replaced(let original)):
                originals.put(store.sourceName(id), original)
                remember(id, original.version)
                return .success(original.version.tag == last.version.tag ? original.version : nil)
            case .success(.changed):
                return .success(nil)
            case .failure(let error):
                return failed(id, error, stale: last.version)
            }
        }
    }

    /// The original of `id` at the version the store has now: from the tiers while that
    /// version is trusted or confirmed, else fetched, once for every request that asks
    /// meanwhile. While the store is down, the original kept. Blocking.
    package func original(_ id: String) -> Result<Found, Failure> {
        flights.run(id) { load(id) }
    }

    private func load(_ id: String) -> Result<Found, Failure> {
        let name = store.sourceName(id)
        let kept = originals.get(name)
        if let kept {
            let version = kept.original.version
            if let entry = known.get(id), clock.now() - entry.at < ttl {
                // Trusted: the kept bytes are it, unless the store told another version since.
                if entry.version.tag == version.tag { return .success(kept) }
            } else {
                switch ask(id, { (answered) throws(Failure) in try store.revalidate(id, version: version, answered: answered) }) {
                case .success(.unchanged(var confirmed)):
                    if confirmed.format == nil { confirmed.format = version.format }
                    remember(id, confirmed)
                    return .success(kept)
                case .success(.replaced(let original)):
                    return .success(stored(id, original))
                case .success(.changed):
                    break
                case .failure(let error):
                    return failed(id, error, stale: (kept.original, nil))
                }
            }
        }
        switch ask(id, { (answered) throws(Failure) in try store.fetch(id, answered: answered) }) {
        case .success(let original):
            return .success(stored(id, original))
        case .failure(let error):
            return failed(id, error, stale: kept.map { ($0.original, nil) })
        }
    }

    private func stored(_ id: String, _ original: OriginalStore.Original) -> Found {
        originals.put(store.sourceName(id), original)
        remember(id, original.version)
        return (original, nil)
    }

    /// After a failure: a gone original is forgotten; while the store is down, `stale` (when
    /// there is one) stands in; anything else is the failure.
    private func failed<T>(_ id: String, _ error: Failure, stale: T?) -> Result<T, Failure> {
        if store.isGone(error) { known.remove(id) }
        if store.isOutage(error), let stale {
            staleServed.increment()
            return .success(stale)
        }
        return .failure(error)
    }

    /// Runs one request for `id` unless its store is down (`StoreHealth`): a failure that says
    /// the store is down counts towards an outage, an answer ends one. The request calls
    /// `answered` when the store's answer began (its status line): from then on it no longer
    /// waits for the store, whose health is judged there; its body's pace is the transfer's to
    /// bound (`TransferPace`), and a body cut short still counts as a failure (`cutAfterAnswer`
    /// says so of a value whose answer went on before its body was cut).
    package func ask<T: Sendable>(_ id: String, _ request: (_ answered: () -> Void) throws(Failure) -> T,
                                  cutAfterAnswer: (T) -> Bool = { _ in false }) -> Result<T, Failure> {
        health(store.healthKey(id)).run(id, refused: { store.unavailable($0.reason) }, isOutage: store.isOutage,
                                         failedAnswer: cutAfterAnswer, request)
    }

    /// The health of the requests sharing `key` (made when first asked).
    private func health(_ key: String) -> StoreHealth {
        if let known = healths.get(key) { return known }
        let made = StoreHealth(clock: clock, probe: { [store] lastFailed in store.probe(lastFailed) },
                               report: StoreHealth.Change.logging(store.describe(healthKey: key), meanwhile: "serving what is kept", to: logger))
        healths.put(key, made, cost: 1)
        return healths.get(key) ?? made
    }
}
