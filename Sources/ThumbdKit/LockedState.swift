import Foundation

/// A value behind a lock: the small shared state of loaders, caches and transports. A plain
/// `NSLock` rather than `Mutex`, so the library runs on OS versions older than `Synchronization`.
final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension NSLock {
    /// `body` with the lock held. (Named apart from Foundation's newer `withLock`, which older
    /// SDKs lack.)
    func criticalSection<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
