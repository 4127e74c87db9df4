import Dispatch
import DequeModule
import Locking

/// Bytes of working memory the transforms running at once may hold together
/// (`limits.transform_memory_bytes`). A transform reserves its estimate before it starts and
/// waits, on its worker thread, until that fits beside the ones running. Waiters start in
/// arrival order, except that one which fits may pass a first waiter which does not (so a
/// core is not left idle behind a large transform) at most `maxPasses` times, after which the
/// first one is next whatever comes; one over the whole budget runs once nothing else does.
/// 0 turns the bound off.
final class MemoryBudget: Sendable {
    let limit: Int
    let maxPasses: Int

    private final class Waiter: Sendable {
        let bytes: Int
        let wake = DispatchSemaphore(value: 0)
        init(bytes: Int) { self.bytes = bytes }
    }

    private struct Queued {
        let waiter: Waiter
        /// How many later reservations started before it.
        var passed = 0
    }

    private struct State {
        var reserved = 0
        var running = 0
        var waiting = Deque<Queued>()
        /// Reservations that had to wait, since the start.
        var waits = 0

        func fits(_ bytes: Int, limit: Int) -> Bool { limit == 0 || running == 0 || reserved + bytes <= limit }

        mutating func admit(_ bytes: Int) {
            reserved += bytes
            running += 1
        }

        /// Whether a reservation behind the first waiter may start before it.
        func mayPassFirst(maxPasses: Int) -> Bool { waiting[0].passed < maxPasses }

        /// Starts the waiters that may start now, in order; returns them.
        mutating func admitWaiting(limit: Int, maxPasses: Int) -> [Waiter] {
            var admitted: [Waiter] = []
            var i = 0
            while i < waiting.count {
                let bytes = waiting[i].waiter.bytes
                if fits(bytes, limit: limit) && (i == 0 || mayPassFirst(maxPasses: maxPasses)) {
                    if i > 0 { waiting[0].passed += 1 }
                    admit(bytes)
                    admitted.append(waiting.remove(at: i).waiter)
                } else if i == 0 && !mayPassFirst(maxPasses: maxPasses) {
                    break
                } else {
                    i += 1
                }
            }
            return admitted
        }
    }

    private let state = Locked(State())

    init(limit: Int, maxPasses: Int = 8) {
        self.limit = max(0, limit)
        self.maxPasses = maxPasses
    }

    /// Runs `body` once `bytes` fit in the budget, and gives them back after it.
    func withReserved<T, E: Error>(_ bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        reserve(bytes)
        defer { release(bytes) }
        return try body()
    }

    /// What is reserved now, what waits, and how many reservations waited since the start.
    var usage: (reserved: Int, waiting: Int, waits: Int) {
        state.withLock { ($0.reserved, $0.waiting.count, $0.waits) }
    }

    /// Queued last, then started by the one rule that starts waiters, at once when it may.
    private func reserve(_ bytes: Int) {
        let waiter = Waiter(bytes: bytes)
        let admitted = state.withLock { s in
            s.waiting.append(Queued(waiter: waiter))
            let admitted = s.admitWaiting(limit: limit, maxPasses: maxPasses)
            if !admitted.contains(where: { $0 === waiter }) { s.waits += 1 }
            return admitted
        }
        for started in admitted { started.wake.signal() }
        waiter.wake.wait()  // at once when it started above; else when `release` starts it
    }

    private func release(_ bytes: Int) {
        let admitted: [Waiter] = state.withLock { s in
            s.reserved -= bytes
            s.running -= 1
            return s.admitWaiting(limit: limit, maxPasses: maxPasses)
        }
        for waiter in admitted { waiter.wake.signal() }
    }
}
