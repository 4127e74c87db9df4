#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("Locked needs pthreads (Glibc or Darwin)")
#endif

/// A value behind a lock, the one lock of the package: the server's shared state and
/// ThumbdKit's alike. The value lives inside and is reached only through `withLock`, so what a
/// lock guards is what it owns.
///
/// A `pthread_mutex_t` of its own, allocated once on the heap (a C mutex must not move, and a
/// Swift property's address is not stable). Not `Synchronization.Mutex`, for two reasons:
/// - ThumbdKit supports iOS 15 and macOS 12, where `Mutex` does not exist; pthreads exist on
///   every platform the package declares, and come with the OS (no C code of ours).
/// - ThreadSanitizer intercepts `pthread_mutex_lock`/`unlock` itself, so TSan builds see the
///   order a contended lock makes without help. (`Mutex` waits in a futex path inside the
///   uninstrumented Synchronization library, so on Linux TSan reports the data it guards as
///   racing unless `__tsan_acquire`/`__tsan_release` are added by hand.)
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Touched only with `mutex` held.
    @usableFromInline nonisolated(unsafe) var value: Value

    @inlinable
    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
