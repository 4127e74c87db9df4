import Synchronization

/// Joins concurrent requests for the same missing result, so that one piece of work runs
/// for all of them and each gets its result.
final class Coalescer<Result: Sendable>: Sendable {
    struct Waiter: Sendable {
        let isCancelled: @Sendable () -> Bool
        let deliver: @Sendable (Result) -> Void
    }

    private let inFlight = Mutex<[String: [Waiter]]>([:])
    /// Requests that joined work already under way.
    let joined = Counter()

    /// Registers `waiter` for `key`. True when the caller is the first and must start the
    /// work (and later call `finish`); false when it joined work already under way.
    func join(_ key: String, _ waiter: Waiter) -> Bool {
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

    /// True when every waiter for `key` has gone: the work can be skipped. Only then is
    /// the key released (and `finish` must not be called).
    func abandonIfUnwanted(_ key: String) -> Bool {
        inFlight.withLock { map in
            guard let waiters = map[key], waiters.allSatisfy({ $0.isCancelled() }) else { return false }
            map[key] = nil
            return true
        }
    }

    /// Hands `result` to every waiter for `key` and releases the key.
    func finish(_ key: String, with result: Result) {
        let waiters = inFlight.withLock { $0.removeValue(forKey: key) } ?? []
        for waiter in waiters { waiter.deliver(result) }
    }

    var pendingKeys: Int { inFlight.withLock { $0.count } }
}
