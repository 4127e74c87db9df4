/// A store thumbd reads originals from but does not own: an HTTP origin (`HTTPOrigin`), an S3
/// bucket (`S3Bucket`). It says only how it is asked; `FetchedOriginals` does the rest the
/// same way for every store.
package protocol OriginStore: Sendable {
    associatedtype Failure: Error & Sendable

    /// Names the source of `id`'s thumbnails in cache keys (and its original in the tiers).
    func sourceName(_ id: String) -> SourceName

    /// Which `StoreHealth` the requests for `id` share: an origin's host, the one bucket.
    func healthKey(_ id: String) -> String

    /// Whether `version` (trusted no longer) is still what the store has, as cheaply as it
    /// can tell: a conditional GET, a HEAD. `answered` is told when the store's answer began
    /// (its status line). Blocking.
    func revalidate(_ id: String, version: SourceVersion, answered: () -> Void) throws(Failure) -> Revalidation

    /// The original of `id`, its bytes read and its version and format worked out;
    /// `answered` is told when the store's answer began. Blocking.
    func fetch(_ id: String, answered: () -> Void) throws(Failure) -> OriginalStore.Original

    /// Whether `failure` says the store is down or slow (a timeout, a cut transfer, a refused
    /// connection, a 5xx): what is kept stands in, and it counts towards an outage.
    func isOutage(_ failure: Failure) -> Bool

    /// Whether `failure` says the original is gone: its version is forgotten.
    func isGone(_ failure: Failure) -> Bool

    /// Whether the store answers at all (any answer but a 5xx), asked about `id` (the last that
    /// failed) within about a second, while its health says it is down. Blocking.
    func probe(_ id: String) -> Bool

    /// The failure of a request not sent because the store is down.
    func unavailable(_ reason: String) -> Failure

    /// The store in log lines, for the requests sharing `healthKey`.
    func describe(healthKey: String) -> String
}

/// What a store says of a version it was asked about.
package enum Revalidation: Sendable {
    /// Still current: the version as the store tells it now (the format is kept if it has none).
    case unchanged(SourceVersion)
    /// Changed, and the new original came with the answer (a conditional GET's 200).
    case replaced(OriginalStore.Original)
    /// Changed: the bytes must be fetched.
    case changed
}
