import Foundation

extension NSLock {
    /// `body` with the lock held. (ThumbdKit's own helper is internal to it, and Foundation's
    /// `withLock` is missing from older SDKs.)
    func guarded<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
