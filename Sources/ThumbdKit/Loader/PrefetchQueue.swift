import Foundation

/// The prefetch queue: URLs waiting their turn, and the prefetches running (at most
/// `maxConcurrentPrefetches`), each a low-priority load.
struct PrefetchQueue {
    struct Running {
        var id: UInt64
        var task: Task<Void, Never>
    }

    var waiting: [URL] = []
    var running: [URL: Running] = [:]
    var lastID: UInt64 = 0
}
