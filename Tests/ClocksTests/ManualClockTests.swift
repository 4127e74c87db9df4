import Clocks
import Dispatch
import Foundation
import Testing

/// A wait on a manual clock ends when a test moves the clock past it, never before.
@Suite struct ManualClockTests {
    @Test func aWaitEndsOnlyOnceTheClockIsMovedPastIt() {
        let clock = ManualClock(100)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            clock.sleep(seconds: 5)
            done.signal()
        }
        while clock.sleepers == 0 { usleep(1000) }
        clock.advance(by: 4.9)
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        clock.advance(by: 0.1)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(clock.now() == 105)
    }

    @Test func aWaitOfNothingReturnsAtOnce() {
        let clock = ManualClock()
        clock.sleep(seconds: 0)
        clock.sleep(seconds: -1)
        #expect(clock.now() == 1000)
    }
}
