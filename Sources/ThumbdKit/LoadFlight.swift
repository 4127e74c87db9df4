import Foundation

/// One load under way for a cache key, shared by every caller that asks for the same URL
/// while it runs (coalescing). It is cancelled only when the last of them has left.
///
/// Its mutable fields are guarded by the owning loader's flight lock.
final class LoadFlight<Image: Sendable>: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<ImageResponse<Image>, any Error>

    struct Waiter {
        let continuation: Continuation
        let priority: LoadPriority
    }

    let key: String
    let url: URL
    /// A stale memory entry when the load began: revalidated rather than fetched anew, and
    /// its decoded image reused on a 304.
    let staleMemory: MemoryImageCache<Image>.Entry?

    var waiters: [UInt64: Waiter] = [:]
    var task: Task<Void, Never>?
    /// The transfer now running, for priority changes and for keeping its bytes on cancel.
    var transfer: NetworkTransfer?
    /// Every waiter left: no new transfer may start.
    var abandoned = false

    init(key: String, url: URL, staleMemory: MemoryImageCache<Image>.Entry?) {
        self.key = key
        self.url = url
        self.staleMemory = staleMemory
    }

    /// The highest priority of those waiting.
    var priority: LoadPriority {
        waiters.values.map(\.priority).max() ?? .low
    }
}
