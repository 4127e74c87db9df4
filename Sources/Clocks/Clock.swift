#if canImport(Glibc)
import Locking
import Glibc
#endif
import Synchronization

/// Monotonic time in seconds. Everything that waits or times out reads it through this
/// protocol, so tests move time forward instead of sleeping.
public protocol MonotonicClock: Sendable {
    func now() -> Double
}

/// CLOCK_MONOTONIC.
public struct SystemClock: MonotonicClock {
    public init() {}

    public func now() -> Double { Self.now() }

    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A clock that moves only when told to.
public final class ManualClock: MonotonicClock {
    private let seconds: Locked<Double>

    public init(_ start: Double = 1000) { seconds = Locked(start) }

    public func now() -> Double { seconds.withLock { $0 } }

    public func advance(by interval: Double) { seconds.withLock { $0 += interval } }
}

/// Calendar time in whole Unix seconds, for what expires at a date (signed URLs'
/// `expires`); tests pass a fixed one.
public protocol WallClock: Sendable {
    func unixSeconds() -> Int
}

/// time(2).
public struct SystemWallClock: WallClock {
    public init() {}

    public func unixSeconds() -> Int { Int(time(nil)) }
}

/// A wall clock that reads what it is set to.
public final class FixedWallClock: WallClock {
    private let seconds: Locked<Int>

    public init(_ seconds: Int) { self.seconds = Locked(seconds) }

    public func unixSeconds() -> Int { seconds.withLock { $0 } }

    public func set(_ value: Int) { seconds.withLock { $0 = value } }
}
