import Dispatch
import Locking
import Synchronization

/// Runs a piece of work once for everyone who asks for the same key while it is under way.
/// Event loops join with a callback (they must not block) and worker threads with `run`,
/// which waits; both kinds can share one key.
package final class SingleFlight<Value: Sendable>: Sendable {
    package struct Waiter: Sendable {
        package let isCancelled: @Sendable () -> Bool
        package let deliver: @Sendable (Value) -> Void

        package init(isCancelled: @escaping @Sendable () -> Bool, deliver: @escaping @Sendable (Value) -> Void) {
            self.isCancelled = isCancelled
            self.deliver = deliver
        }
    }

    private let inFlight = Locked<[String: [Waiter]]>([:])
    /// Requests that joined work already under way.
    package let joined = Counter()

    /// Registers `waiter` for `key`. True when the caller is the first and must start the
    /// work (and later call `finish`); false when it joined work already under way.
    package func join(_ key: String, _ waiter: Waiter) -> Bool {
        inFlight.withLock { map in
            if map[key] != nil {
                map[key]!.append(waiter)
                joined.increment()
                return false
            }
            map[key] = [waiter]
            return true
        }
    }

    /// True when every waiter for `key` has gone (the key stays held).
    package func isUnwanted(_ key: String) -> Bool {
        inFlight.withLock { map in map[key].map { $0.allSatisfy { $0.isCancelled() } } ?? true }
    }

    /// True when every waiter for `key` has gone: the work can be skipped. Only then is
    /// the key released (and `finish` must not be called).
    package func abandonIfUnwanted(_ key: String) -> Bool {
        inFlight.withLock { map in
            guard let waiters = map[key], waiters.allSatisfy({ $0.isCancelled() }) else { return false }
            map[key] = nil
            return true
        }
    }

    /// Hands `value` to every waiter for `key` and releases the key.
    package func finish(_ key: String, with value: Value) {
        let waiters = inFlight.withLock { $0.removeValue(forKey: key) } ?? []
        for waiter in waiters { waiter.deliver(value) }
    }

    /// Blocking: runs `work` for `key`, or waits for the run already under way and returns its value.
    package func run(_ key: String, _ work: () -> Value) -> Value {
        let result = Handoff()
        let waiter = Waiter(isCancelled: { false }, deliver: { result.set($0) })
        if join(key, waiter) { finish(key, with: work()) }
        return result.get()
    }

    package var pendingKeys: Int { inFlight.withLock { $0.count } }

    /// One value handed from the thread that finishes to the one that waits.
    private final class Handoff: Sendable {
        private let value = Locked<Value?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func set(_ v: Value) {
            value.withLock { $0 = v }
            done.signal()
        }

        func get() -> Value {
            done.wait()
            return value.withLock { $0! }
        }
    }
}
