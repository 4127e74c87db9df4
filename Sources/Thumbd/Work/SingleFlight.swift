import Dispatch
import Synchronization

/// Runs blocking work once per key at a time: callers asking for a key already in flight
/// wait for that result instead of doing the work again (one origin fetch per URL).
final class SingleFlight<Value: Sendable>: Sendable {
    private final class Flight: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var value: Value?  // written once, before `done` is signalled
        var waiters = 0
    }

    private let flights = Mutex<[String: Flight]>([:])
    /// Calls that waited for someone else's work.
    let shared = Counter()

    func run(_ key: String, _ work: () -> Value) -> Value {
        let (flight, leader) = flights.withLock { map -> (Flight, Bool) in
            if let existing = map[key] {
                existing.waiters += 1
                return (existing, false)
            }
            let flight = Flight()
            map[key] = flight
            return (flight, true)
        }
        if !leader {
            shared.increment()
            flight.done.wait()
            return flight.value!
        }
        let value = work()
        flight.value = value
        let waiters = flights.withLock { map -> Int in
            map[key] = nil
            return flight.waiters
        }
        for _ in 0..<waiters { flight.done.signal() }
        return value
    }
}
