#if canImport(Glibc)
import Locking
import Glibc
#endif
import Dispatch
import Synchronization

/// Monotonic time in seconds. Everything that waits or times out reads it through this
/// protocol, so tests move time forward instead of sleeping.
public protocol MonotonicClock: Sendable {
    func now() -> Double
    /// Waits `seconds` of this clock's time: a real sleep, or (`ManualClock`) until a test moves it on.
    func sleep(seconds: Double)
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

    public func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var left = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var asked = left
        while nanosleep(&asked, &left) == -1 && errno == EINTR { asked = left }
    }
}

/// A clock that moves only when told to (`advance`). A wait on it returns once the clock has
/// been moved past its end: a thread that waits on it runs when the test moves time.
public final class ManualClock: MonotonicClock {
    private struct State {
        var seconds: Double
        var sleepers: [(until: Double, wake: DispatchSemaphore)] = []
    }

    private let state: Locked<State>

    public init(_ start: Double = 1000) { state = Locked(State(seconds: start)) }

    public func now() -> Double { state.withLock { $0.seconds } }

    public func advance(by interval: Double) {
        let woken = state.withLock { state -> [DispatchSemaphore] in
            state.seconds += interval
            let now = state.seconds
            let due = state.sleepers.filter { $0.until <= now }.map(\.wake)
            state.sleepers.removeAll { $0.until <= now }
            return due
        }
        for wake in woken { wake.signal() }
    }

    /// Waits under way: a test moves time once the thread it drives is waiting.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(seconds interval: Double) {
        let wake = DispatchSemaphore(value: 0)
        let waits = state.withLock { state -> Bool in
            guard interval > 0 else { return false }
            state.sleepers.append((state.seconds + interval, wake))
            return true
        }
        if waits { wake.wait() }
    }
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
