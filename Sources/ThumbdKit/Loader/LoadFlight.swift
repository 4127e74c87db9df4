import Foundation

/// One load under way for a cache key, shared by every caller that asks for the same URL
/// while it runs (coalescing): what the stages need to know of it. Its waiters, task and
/// current transfer change as it runs, so they live in the `FlightTable` that made it.
struct LoadFlight<Image: Sendable>: Sendable {
    /// Tells this flight from a later one for the same key (after this one was abandoned).
    let id: UInt64
    let key: String
    let url: URL
    /// A stale memory entry when the load began: revalidated rather than fetched anew, and
    /// its decoded image reused on a 304.
    let staleMemory: MemoryImageCache<Image>.Entry?
}
