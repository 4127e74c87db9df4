import Clocks
import HTTP
import Testing
@testable import Thumbd
@testable import ThumbdCore

@Suite struct StoreHealthTests {
    func ticket(_ health: StoreHealth) -> StoreHealth.Ticket? { try? health.admit().get() }

    @Test func aFailurePausesTheStoreFromWhenItCameNotFromWhenTheRequestBegan() {
        let clock = ManualClock()
        let health = StoreHealth(pause: 1, slowAfter: 100, clock: clock)
        let asking = try! #require(ticket(health))
        clock.advance(by: 30)  // a request that timed out after 30 s
        #expect(health.finished(asking, failed: true) == .wentDown)
        #expect(ticket(health) == nil && !health.isAnswering)
        clock.advance(by: 0.9)
        #expect(ticket(health) == nil)
        clock.advance(by: 0.2)
        let retry = try! #require(ticket(health))
        guard case .cameBack(let seconds) = health.finished(retry, failed: false) else {
            Issue.record("no outage ended")
            return
        }
        #expect(abs(seconds - 1.1) < 1e-6)
        #expect(health.isAnswering && ticket(health) != nil)
    }

    @Test func aRequestWaitingPastSlowAfterHoldsBackTheOthers() {
        let clock = ManualClock()
        let health = StoreHealth(pause: 1, slowAfter: 1, clock: clock)
        let first = try! #require(ticket(health))
        clock.advance(by: 0.5)
        let second = try! #require(ticket(health))  // not slow yet: both may wait
        clock.advance(by: 0.6)
        #expect(ticket(health) == nil && !health.isAnswering)  // the first has waited 1.1 s
        #expect(health.finished(first, failed: false) == .none)
        #expect(ticket(health) != nil)  // the second has waited 0.6 s only
        _ = health.finished(second, failed: false)
    }
}
