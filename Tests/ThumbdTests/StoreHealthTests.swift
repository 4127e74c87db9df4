import Clocks
import Locking
import Testing
@testable import ThumbdCore

@Suite struct StoreHealthTests {
    func ticket(_ health: StoreHealth, _ subject: String = "") -> StoreHealth.Ticket? { try? health.admit(subject).get() }

    @Test func failuresOfTwoSubjectsWithNoAnswerBetweenTakeTheStoreDown() {
        let clock = ManualClock()
        let health = StoreHealth(clock: clock, probe: { _ in false })
        let a = ticket(health, "a.jpg")!, b = ticket(health, "b.jpg")!
        #expect(health.finished(a, failed: true) == .none)
        #expect(health.isAnswering && ticket(health, "c.jpg") != nil)
        #expect(health.finished(b, failed: true) == .wentDown)
        #expect(!health.isAnswering && ticket(health, "c.jpg") == nil)
    }

    @Test func oneSubjectFailingAgainAndAgainNeverTakesTheStoreDown() {
        let health = StoreHealth(clock: ManualClock(), probe: { _ in false })
        for _ in 0..<10 { #expect(health.finished(ticket(health, "trickling.jpg")!, failed: true) == .none) }
        #expect(health.isAnswering && ticket(health, "other.jpg") != nil)
    }

    @Test func anAnswerBetweenFailuresForgetsThem() {
        let health = StoreHealth(clock: ManualClock(), probe: { _ in false })
        health.finished(ticket(health, "a.jpg")!, failed: true)
        health.finished(ticket(health, "ok.jpg")!, failed: false)
        #expect(health.finished(ticket(health, "b.jpg")!, failed: true) == .none)
        #expect(health.isAnswering)
    }

    @Test func aRequestStillRunningNeverHoldsTheStore() {
        let clock = ManualClock()
        let health = StoreHealth(clock: clock)
        let long = ticket(health, "slow.mp4")!
        clock.advance(by: 600)
        #expect(ticket(health, "other.jpg") != nil)
        #expect(health.finished(long, failed: false) == .none)
    }

    @Test func twoRequestsStillWaitingPastSlowAfterTakeTheStoreDown() {
        let clock = ManualClock()
        let probes = Locked(0)
        let health = StoreHealth(clock: clock, probe: { _ in probes.withLock { $0 += 1 }; return false })
        let first = ticket(health, "a.jpg")!, second = ticket(health, "b.jpg")!
        clock.advance(by: StoreHealth.Defaults.slowAfter)
        // Both wait: the next request probes the store first, and finds it down.
        #expect(ticket(health, "c.jpg") == nil && !health.isAnswering && probes.withLock { $0 } == 1)
        guard case .cameBack = health.finished(first, failed: false) else {
            Issue.record("an answer did not end the outage")
            return
        }
        #expect(health.finished(second, failed: false) == .none)
    }

    @Test func aLongBodyWhoseAnswerCameIsNeverASlowRequest() {
        let clock = ManualClock()
        let health = StoreHealth(clock: clock, probe: { _ in false })
        let first = ticket(health, "large-1.mp4")!, second = ticket(health, "large-2.mp4")!
        health.answering(first)
        health.answering(second)
        clock.advance(by: 60)  // both bodies still coming, at their own pace
        #expect(ticket(health, "other.jpg") != nil && health.isAnswering)
    }

    @Test func afterAProbeAnsweredStillWaitingRequestsDoNotTakeItDownAgainAtOnce() {
        let clock = ManualClock()
        let probed = Locked<[String]>([])
        let health = StoreHealth(clock: clock, probe: { subject in probed.withLock { $0.append(subject) }; return true })
        _ = ticket(health, "a.jpg")!
        _ = ticket(health, "b.jpg")!
        clock.advance(by: StoreHealth.Defaults.slowAfter)
        // Down for the two waiting; the probe asks about one of them, and answers.
        #expect(ticket(health, "c.jpg") != nil)
        #expect(probed.withLock { $0 } == ["a.jpg"] || probed.withLock { $0 } == ["b.jpg"])
        #expect(ticket(health, "d.jpg") != nil && health.isAnswering)
        clock.advance(by: StoreHealth.Defaults.slowAfter / 2)
        #expect(ticket(health, "e.jpg") != nil && health.isAnswering)
    }

    @Test func whileDownOneProbeAnIntervalDecidesAndItsAnswerEndsTheOutage() {
        let clock = ManualClock()
        let answers = Locked(false), probes = Locked<[String]>([])
        let changes = Locked<[StoreHealth.Change]>([])
        let health = StoreHealth(clock: clock, probe: { last in
            probes.withLock { $0.append(last) }
            return answers.withLock { $0 }
        }, report: { change in changes.withLock { $0.append(change) } })
        health.finished(ticket(health, "a.jpg")!, failed: true)
        health.finished(ticket(health, "b.jpg")!, failed: true)
        // The first request after it went down probes at once; then one probe an interval.
        #expect(ticket(health, "c.jpg") == nil)
        #expect(probes.withLock { $0 } == ["b.jpg"])
        clock.advance(by: StoreHealth.Defaults.probeInterval / 2)
        #expect(ticket(health, "c.jpg") == nil && probes.withLock { $0.count } == 1)  // not due again yet
        answers.withLock { $0 = true }
        clock.advance(by: StoreHealth.Defaults.probeInterval / 2)
        #expect(ticket(health, "c.jpg") != nil)  // the probe answered: this request goes
        #expect(health.isAnswering)
        #expect(changes.withLock { $0 } == [.wentDown, .cameBack(seconds: StoreHealth.Defaults.probeInterval)])
    }

    @Test func withoutAProbeOneRequestAnIntervalIsTheTrial() {
        let clock = ManualClock()
        let health = StoreHealth(clock: clock)
        health.finished(ticket(health, "a.jpg")!, failed: true)
        health.finished(ticket(health, "b.jpg")!, failed: true)
        let trial = ticket(health, "c.jpg")!
        #expect(ticket(health, "d.jpg") == nil)  // one trial at a time
        clock.advance(by: StoreHealth.Defaults.probeInterval)
        #expect(ticket(health, "d.jpg") == nil)
        guard case .cameBack = health.finished(trial, failed: false) else {
            Issue.record("the trial's answer did not end the outage")
            return
        }
        #expect(ticket(health, "d.jpg") != nil)
    }
}
