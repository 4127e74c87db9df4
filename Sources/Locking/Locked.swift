import Synchronization

/// A value behind a lock: the standard library's `Mutex`, and under ThreadSanitizer the
/// happens-before edge it makes, declared to the sanitizer.
///
/// On Linux, `Mutex` waits in a futex slow path inside the uninstrumented Synchronization
/// library, so TSan does not see that a contended lock orders the accesses it guards and
/// reports them as racing (a minimal two-thread program shows it). `make test-tsan` builds
/// with `-DTSAN`, which adds `__tsan_acquire`/`__tsan_release` on this object's address
/// around every critical section; other builds are plain `Mutex` behind one reference.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: Mutex<Value>

    @inlinable
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            #if TSAN
            let address = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            tsanAcquire(address)
            defer { tsanRelease(address) }
            #endif
            return try body(&value)
        }
    }
}

#if TSAN
@usableFromInline @_silgen_name("__tsan_acquire") func tsanAcquire(_ address: UnsafeRawPointer)
@usableFromInline @_silgen_name("__tsan_release") func tsanRelease(_ address: UnsafeRawPointer)
#endif
