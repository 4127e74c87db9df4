import Testing
@testable import ThumbdCore

@Suite struct TransferPaceTests {
    let limits = TransferLimits(timeout: 10, minRate: 1000, window: 5, streamTimeout: 100)

    /// Checks every 0.1 s from `from` to `to` with `bytes(t)` received, until a verdict.
    func run(_ pace: inout TransferPace, from: Double, to: Double, head: Bool = true, bytes: (Double) -> Int64) -> (TransferPace.Verdict, Double) {
        var t = from
        while t <= to {
            let verdict = pace.check(received: bytes(t), headSeen: head, now: t)
            if verdict != .going { return (verdict, t) }
            t += 0.1
        }
        return (.going, t)
    }

    @Test func aBodyAboveTheRateGoesOnToTheDeadline() {
        var pace = TransferPace(limits: limits, startedAt: 0)
        let (verdict, at) = run(&pace, from: 0, to: 20) { Int64($0 * 2000) }
        guard case .pastDeadline = verdict else { Issue.record("\(verdict)"); return }
        #expect(abs(at - 10) < 0.15)
    }

    @Test func aTrickleIsCutOneWindowAfterItsAnswerBegan() {
        var pace = TransferPace(limits: limits, startedAt: 0)
        let (verdict, at) = run(&pace, from: 0, to: 20) { Int64($0 * 5) }
        guard case .tooSlow(let bytes, let seconds) = verdict else { Issue.record("\(verdict)"); return }
        #expect(abs(at - 5) < 0.15 && seconds >= 5 && bytes < 5000)
    }

    @Test func aStallAfterAFastStartIsCutWithinAWindowOfIt() {
        var pace = TransferPace(limits: limits, startedAt: 0)
        let (verdict, at) = run(&pace, from: 0, to: 20) { t in t < 3 ? Int64(t * 1_000_000) : 3_000_000 }
        guard case .tooSlow = verdict else { Issue.record("\(verdict)"); return }
        #expect(at > 3 && at <= 8.2, "cut at \(at)")
    }

    @Test func theRateClockStartsWithTheAnswerNotTheConnection() {
        var pace = TransferPace(limits: limits, startedAt: 0)
        // 8 s without a head: only the deadline applies.
        #expect(run(&pace, from: 0, to: 8, head: false) { _ in 0 }.0 == .going)
    }

    @Test func waitsOnTheClientAreNotTheStores() {
        var pace = TransferPace(limits: limits, startedAt: 0)
        #expect(pace.check(received: 0, headSeen: true, now: 0) == .going)
        pace.answered(at: 1)
        // The client took 500 s to read what came: neither the deadline nor the rate sees it.
        pace.waitedOnClient(500)
        #expect(pace.check(received: 4000, headSeen: true, now: 503) == .going)
        let (verdict, at) = run(&pace, from: 503, to: 700) { t in 4000 + Int64((t - 503) * 2000) }
        guard case .pastDeadline(let seconds) = verdict else { Issue.record("\(verdict)"); return }
        // The stream's 100 s count from its answer, in the store's time.
        #expect(abs(at - 601) < 0.15 && abs(seconds - 101) < 0.15)
    }

    @Test func noMinimumRateMeansOnlyTheDeadline() {
        var pace = TransferPace(limits: TransferLimits(timeout: 10, minRate: 0), startedAt: 0)
        let (verdict, _) = run(&pace, from: 0, to: 20) { _ in 1 }
        guard case .pastDeadline = verdict else { Issue.record("\(verdict)"); return }
    }
}
