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
}
