/// Loader-wide counters, a snapshot (`ThumbdLoader.counters`).
public struct LoaderCounters: Sendable, Equatable {
    /// Calls to `load`.
    public var loads = 0
    public var memoryHits = 0
    public var diskHits = 0
    /// Complete 200 bodies.
    public var networkLoads = 0
    /// 304s that refreshed a stale entry.
    public var revalidations = 0
    /// 206s appended to kept bytes.
    public var resumes = 0
    /// Resumes the server answered with a range that did not fit: started over.
    public var restarts = 0
    /// Loads that joined a load already under way for the same URL.
    public var coalesced = 0
    /// HTTP requests sent.
    public var requestsSent = 0
    /// Transfers stopped because every load waiting for them was cancelled.
    public var transfersCancelled = 0
    public var failures = 0
    /// Body bytes received from the network, as they arrive.
    public var bytesReceived = 0
    /// Loads under way now (one per URL however many callers wait).
    public var loadsInFlight = 0

    public init() {}
}
