import CSystem
import DequeModule
import Dispatch
import Locking

/// Bytes of working memory the transforms running at once may hold together
/// (`limits.transform_memory_bytes`). A transform reserves its estimate before it starts and
/// waits, on its worker thread, until that fits beside the ones running. Waiters start in
/// arrival order, except that one which fits may pass a first waiter which does not (so a
/// core is not left idle behind a large transform) at most `maxPasses` times, after which the
/// first one is next whatever comes. A reservation larger than the whole budget is refused at
/// once: it could only run by going over it. A waiter whose work nobody wants any more (its
/// clients left, its response timed out) leaves the queue. 0 turns the bound off.
package final class MemoryBudget: Sendable {
    package let limit: Int
    package let maxPasses: Int
    /// How often a waiter looks whether its work is still wanted.
    package let abandonCheckInterval: Double
    /// Told the bytes reserved each time they change, in order (under the budget's lock);
    /// true when it freed memory worth handing back to the system (`malloc_trim`). The app
    /// shrinks the memory tier with it while transforms need its room.
    private let reservedChanged: (@Sendable (Int) -> Bool)?
    /// Whether a large reservation's release hands freed memory back now: each hand-back
    /// makes the next transforms fault their buffers in again (zeroed pages, about 3 ms of a
    /// 40 ms miss on large progressive JPEGs), so the app asks only near its memory limit.
    private let handBackLarge: @Sendable () -> Bool
    /// Hands freed memory back to the system (`malloc_trim`).
    private let handBack: @Sendable () -> Void

    /// Why a reservation did not run.
    package enum Refusal: Error, Sendable, Equatable {
        /// More than the whole budget.
        case overLimit(needed: Int, limit: Int)
        /// Nobody wanted the work any more while it waited.
        case abandoned
    }

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

    /// What `usage` reports.
    package struct Usage: Sendable, Equatable {
        package var reserved = 0
        package var waiting = 0
        /// Reservations that had to wait, since the start.
        package var waits = 0
        /// Bytes reserved by every reservation that ran, since the start.
        package var reservedTotal = 0
        /// Reservations refused for being over the whole budget.
        package var refusals = 0
        /// Waiters that left because their work was no longer wanted.
        package var abandoned = 0

        package init() {

        }
    }

    private struct State {
        var usage = Usage()
        /// Memory was freed since the last hand-back to the system.
        var freed = false
        var running = 0
        var waiting = Deque<Queued>()

        func fits(_ bytes: Int, limit: Int) -> Bool { limit == 0 || running == 0 || usage.reserved + bytes <= limit }

        mutating func admit(_ bytes: Int) {
            usage.reserved += bytes
            usage.reservedTotal += bytes
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
    /// A reservation this large hands what it freed back to the system when released.
    package static let handBackBytes = 32 << 20

    package init(limit: Int, maxPasses: Int = 8, abandonCheckInterval: Double = 0.25,
         reservedChanged: (@Sendable (Int) -> Bool)? = nil, handBackLarge: @escaping @Sendable () -> Bool = { true },
         handBack: @escaping @Sendable () -> Void = { csys_release_free_memory() }) {
        self.limit = max(0, limit)
        self.maxPasses = maxPasses
        self.abandonCheckInterval = abandonCheckInterval
        self.reservedChanged = reservedChanged
        self.handBackLarge = handBackLarge
        self.handBack = handBack
    }

    /// `admitWaiting`, then the reserved bytes told to `reservedChanged`: under the lock.
    private func admitAndTell(_ s: inout State) -> [Waiter] {
        let before = s.usage.reserved
        let admitted = s.admitWaiting(limit: limit, maxPasses: maxPasses)
        if let reservedChanged, s.usage.reserved != before, reservedChanged(s.usage.reserved) { s.freed = true }
        return admitted
    }

    /// After the lock: memory freed for a transform goes back to the system, so the transform's
    /// own allocations find it.
    private func handBackFreed() {
        if state.withLock({ s in defer { s.freed = false }; return s.freed }) { handBack() }
    }

    /// Runs `body` once `bytes` fit in the budget, and gives them back after it. Refused
    /// without running when `bytes` alone are over the budget, or when `abandoned` says,
    /// while it waits, that nobody wants the work any more.
    package func withReserved<T, E: Error>(_ bytes: Int, abandoned: () -> Bool = { false },
                                   _ body: () throws(E) -> T) throws(E) -> Result<T, Refusal> {
        if let refusal = reserve(bytes, abandoned: abandoned) { return .failure(refusal) }
        defer { release(bytes) }
        return .success(try body())
    }

    package var usage: Usage {
        state.withLock { s in
            var usage = s.usage
            usage.waiting = s.waiting.count
            return usage
        }
    }

    /// Queued last, then started by the one rule that starts waiters, at once when it may.
    private func reserve(_ bytes: Int, abandoned: () -> Bool) -> Refusal? {
        if limit > 0 && bytes > limit {
            state.withLock { $0.usage.refusals += 1 }
            return .overLimit(needed: bytes, limit: limit)
        }
        let waiter = Waiter(bytes: bytes)
        let admitted = state.withLock { s in
            s.waiting.append(Queued(waiter: waiter))
            let admitted = admitAndTell(&s)
            if !admitted.contains(where: { $0 === waiter }) { s.usage.waits += 1 }
            return admitted
        }
        for started in admitted { started.wake.signal() }
        defer { handBackFreed() }
        // At once when it started above; else when `release` starts it, or it is given up.
        while waiter.wake.wait(timeout: .now() + abandonCheckInterval) == .timedOut {
            guard abandoned() else { continue }
            let left = state.withLock { s in
                guard let index = s.waiting.firstIndex(where: { $0.waiter === waiter }) else { return false }
                s.waiting.remove(at: index)
                s.usage.abandoned += 1
                return true
            }
            if left {
                // It may have been the first waiter, holding back others that fit now.
                let admitted = state.withLock { admitAndTell(&$0) }
                for started in admitted { started.wake.signal() }
                return .abandoned
            }
            // Started meanwhile: its wake is signalled (or about to be).
        }
        return nil
    }

    private func release(_ bytes: Int) {
        // Asked before the lock: the app reads the process's resident memory.
        let large = bytes >= Self.handBackBytes && handBackLarge()
        let admitted: [Waiter] = state.withLock { s in
            s.usage.reserved -= bytes
            s.running -= 1
            // What a large transform freed goes back to the system before the next one
            // starts: in a storm the pool never idles, and the arenas would keep it.
            if large { s.freed = true }
            let admitted = admitAndTell(&s)
            if admitted.isEmpty, let reservedChanged, reservedChanged(s.usage.reserved) { s.freed = true }
            return admitted
        }
        handBackFreed()
        for waiter in admitted { waiter.wake.signal() }
    }
}
