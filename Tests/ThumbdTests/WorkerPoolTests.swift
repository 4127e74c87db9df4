import Dispatch
import Locking
import Testing
import TestSupport
@testable import ThumbdCore

@Suite struct WorkerPoolTests {
    /// The idle hook (libjpeg's kept buffers unmapped, freed memory handed back) runs once the
    /// last job of a burst ends, not between a job and the next one waiting.
    @Test func whenIdleRunsOnceNothingRunsOrWaits() {
        let idles = Locked(0)
        let ran = Locked<[String]>([])
        let pool = WorkerPool(workers: 1, queueLimit: 4, whenIdle: { idles.withLock { $0 += 1 } })
        defer { pool.stop() }
        let gate = DispatchSemaphore(value: 0)
        #expect(pool.submit {
            gate.wait()
            ran.withLock { $0.append("first") }
        })
        #expect(pool.submit { ran.withLock { $0.append("second: idle hooks so far \(idles.withLock { $0 })") } })
        gate.signal()
        #expect(eventually { idles.withLock { $0 } == 1 })
        #expect(ran.withLock { $0 } == ["first", "second: idle hooks so far 0"])
    }

    /// With a delay, the hook runs only if the pool stayed idle: a job started meanwhile (the
    /// next request of a burst) keeps what the hook would hand back.
    @Test func aDelayedIdleHookRunsOnlyIfNoJobStartedMeanwhile() {
        let idles = Locked(0)
        let scheduled = Locked<[(Double, @Sendable () -> Void)]>([])
        let pool = WorkerPool(workers: 1, queueLimit: 4, whenIdle: { idles.withLock { $0 += 1 } }, idleDelay: 1,
                              schedule: { delay, work in scheduled.withLock { $0.append((delay, work)) } })
        defer { pool.stop() }
        #expect(pool.submit {})
        #expect(eventually { scheduled.withLock { $0.count } == 1 })
        #expect(pool.submit {})
        #expect(eventually { scheduled.withLock { $0.count } == 2 })
        let (first, second) = scheduled.withLock { ($0[0], $0[1]) }
        #expect(first.0 == 1 && idles.withLock { $0 } == 0, "nothing runs before its delay")
        first.1()
        #expect(idles.withLock { $0 } == 0, "a job started after the first idle moment")
        second.1()
        #expect(idles.withLock { $0 } == 1)
    }
}
