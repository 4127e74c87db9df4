import Foundation
import Locking
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// A reservation held on its own thread until the test lets it go.
final class BudgetHolder: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let leave = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let isInside = Atomic<Bool>(false)

    /// Why it did not run, once it returned without running.
    let refusal = Locked<MemoryBudget.Refusal?>(nil)

    init(_ budget: MemoryBudget, bytes: Int, abandoned: @escaping @Sendable () -> Bool = { false }) {
        Thread.detachNewThread { [self] in
            let result = budget.withReserved(bytes, abandoned: abandoned) {
                isInside.store(true, ordering: .sequentiallyConsistent)
                entered.signal()
                leave.wait()
                isInside.store(false, ordering: .sequentiallyConsistent)
            }
            if case .failure(let why) = result { refusal.withLock { $0 = why } }
            done.signal()
        }
    }

    var inside: Bool { isInside.load(ordering: .sequentiallyConsistent) }
    func waitEntered() -> Bool { entered.wait(timeout: .now() + 10) == .success }
    func release() {
        leave.signal()
        _ = done.wait(timeout: .now() + 10)
    }
}

@Suite struct MemoryBudgetTests {
    /// `asking` bytes reserved while another holds `holding`: they wait, not inside, until the
    /// holder gives its bytes back, then enter; returns the one now inside.
    static func waitsForTheHolder(_ budget: MemoryBudget, holding: Int, asking: Int) -> BudgetHolder {
        let holder = BudgetHolder(budget, bytes: holding)
        #expect(holder.waitEntered())
        let waiter = BudgetHolder(budget, bytes: asking)
        #expect(eventually { budget.usage.waiting == 1 })
        #expect(!waiter.inside)
        holder.release()
        #expect(waiter.waitEntered())
        return waiter
    }

    /// A large transform's release hands freed memory back only when the app says it is near
    /// its limit; a small one never does.
    @Test func aLargeReleaseHandsMemoryBackOnlyWhenAsked() {
        let nearLimit = Locked(false), handedBack = Locked(0)
        let budget = MemoryBudget(limit: 1 << 30, handBackLarge: { nearLimit.withLock { $0 } },
                                  handBack: { handedBack.withLock { $0 += 1 } })
        let large = MemoryBudget.handBackBytes
        _ = budget.withReserved(large) {}
        #expect(handedBack.withLock { $0 } == 0, "far from the limit the arenas keep it")
        nearLimit.withLock { $0 = true }
        _ = budget.withReserved(large - 1) {}
        #expect(handedBack.withLock { $0 } == 0, "a small transform never hands back")
        _ = budget.withReserved(large) {}
        #expect(handedBack.withLock { $0 } == 1)
    }

    @Test func reservationsThatFitTogetherRunTogether() {
        let budget = MemoryBudget(limit: 100)
        let a = BudgetHolder(budget, bytes: 60)
        #expect(a.waitEntered())
        let b = BudgetHolder(budget, bytes: 40)
        #expect(b.waitEntered())
        #expect(budget.usage.reserved == 100 && budget.usage.waits == 0)
        a.release()
        b.release()
        #expect(budget.usage.reserved == 0)
    }

    @Test func oneThatDoesNotFitWaitsUntilTheOthersGiveBack() {
        let budget = MemoryBudget(limit: 100)
        let b = Self.waitsForTheHolder(budget, holding: 60, asking: 50)
        #expect(budget.usage.reserved == 50 && budget.usage.waits == 1)
        b.release()
    }

    @Test func aSmallOneMayPassALargeWaiterOnlyAFewTimes() {
        let budget = MemoryBudget(limit: 100, maxPasses: 2)
        let a = BudgetHolder(budget, bytes: 60)
        #expect(a.waitEntered())
        let large = BudgetHolder(budget, bytes: 50)
        #expect(eventually { budget.usage.waiting == 1 })
        // Two small ones fit beside the first and pass the large one...
        let passers = [BudgetHolder(budget, bytes: 10), BudgetHolder(budget, bytes: 10)]
        for passer in passers { #expect(passer.waitEntered()) }
        // ...a third, which would fit too, waits behind it.
        let third = BudgetHolder(budget, bytes: 10)
        #expect(eventually { budget.usage.waiting == 2 })
        #expect(!large.inside && !third.inside)
        for passer in passers { passer.release() }
        #expect(!large.inside && !third.inside)  // 60 + 50 does not fit yet
        a.release()
        #expect(large.waitEntered() && third.waitEntered())
        #expect(budget.usage.reserved == 60 && budget.usage.waiting == 0)
        large.release()
        third.release()
    }

    @Test func oneOverTheWholeBudgetIsRefusedAtOnce() {
        let budget = MemoryBudget(limit: 100)
        let small = BudgetHolder(budget, bytes: 10)
        #expect(small.waitEntered())
        // Refused without waiting for the holder (or for nothing else to run).
        let huge = BudgetHolder(budget, bytes: 500)
        #expect(huge.done.wait(timeout: .now() + 10) == .success)
        #expect(huge.refusal.withLock { $0 } == .overLimit(needed: 500, limit: 100))
        #expect(budget.usage.refusals == 1 && budget.usage.waiting == 0)
        // Exactly the whole budget is not refused.
        small.release()
        let all = BudgetHolder(budget, bytes: 100)
        #expect(all.waitEntered())
        all.release()
        #expect(budget.usage.reserved == 0 && budget.usage.refusals == 1)
    }

    @Test func aWaiterWhoseWorkIsNoLongerWantedLeavesAndLetsTheNextIn() {
        let budget = MemoryBudget(limit: 100, abandonCheckInterval: 0.01)
        let holder = BudgetHolder(budget, bytes: 60)
        #expect(holder.waitEntered())
        let gone = Atomic<Bool>(false)
        let large = BudgetHolder(budget, bytes: 50, abandoned: { gone.load(ordering: .sequentiallyConsistent) })
        #expect(eventually { budget.usage.waiting == 1 })
        // A small one queued behind the large first waiter (no passing allowed here would
        // hold it back; it fits beside the holder once the large one has left).
        gone.store(true, ordering: .sequentiallyConsistent)
        #expect(large.done.wait(timeout: .now() + 10) == .success)
        #expect(large.refusal.withLock { $0 } == .abandoned && !large.inside)
        #expect(budget.usage.abandoned == 1 && budget.usage.waiting == 0 && budget.usage.reserved == 60)
        holder.release()
        #expect(budget.usage.reserved == 0)
    }

    @Test func zeroTurnsTheBoundOff() {
        let budget = MemoryBudget(limit: 0)
        let holders = [1 << 30, 1 << 30, 1 << 30].map { BudgetHolder(budget, bytes: $0) }
        for holder in holders { #expect(holder.waitEntered()) }
        #expect(budget.usage.waits == 0)
        for holder in holders { holder.release() }
    }

    /// Property: whatever the sizes and the interleaving, what runs at once stays within the
    /// budget, every reservation that fits the budget gets to run and every other is refused.
    @Test(arguments: [1, 2, 3, 4]) func whatRunsAtOnceStaysWithinTheBudget(seed: UInt64) {
        let limit = 1000
        let budget = MemoryBudget(limit: limit)
        // Locked, not Mutex: ThreadSanitizer (make test-tsan) sees a pthread mutex's ordering.
        let inside = Locked<(bytes: Int, count: Int, violations: Int, runs: Int)>((0, 0, 0, 0))
        var random = SplitMix64(seed: seed)
        let plans = (0..<6).map { _ in (0..<40).map { _ in Int.random(in: 1...1400, using: &random) } }
        DispatchQueue.concurrentPerform(iterations: plans.count) { thread in
            for bytes in plans[thread] {
                _ = budget.withReserved(bytes) {
                    inside.withLock { s in
                        s.bytes += bytes
                        s.count += 1
                        s.runs += 1
                        if s.bytes > limit { s.violations += 1 }
                    }
                    for _ in 0..<(bytes % 7) { sched_yield() }
                    inside.withLock { s in
                        s.bytes -= bytes
                        s.count -= 1
                    }
                }
            }
        }
        let final = inside.withLock { $0 }
        #expect(final.violations == 0)
        let fitting = plans.joined().filter { $0 <= limit }.count
        #expect(final.runs == fitting && final.bytes == 0 && budget.usage.refusals == 240 - fitting)
        #expect(budget.usage.reserved == 0 && budget.usage.waiting == 0)
    }
}
