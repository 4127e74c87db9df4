/// Whether one transfer still keeps within its `TransferLimits`, judged from what it received
/// when: pure, so its arithmetic is tested with any times. Time waiting on the client (a
/// streamed body whose reader is slow) is not the store's and is taken out.
package struct TransferPace: Sendable {
    package enum Verdict: Sendable, Equatable {
        case going
        /// Under the minimum rate: `bytes` came in the last `seconds`.
        case tooSlow(bytes: Int64, seconds: Double)
        /// Past the deadline, after `seconds` of the store's time.
        case pastDeadline(seconds: Double)
    }

    package let limits: TransferLimits
    private let started: Double
    /// The store's time the deadline ends at: `timeout` from the start, then, once the head of
    /// a stream went on, `streamTimeout` from there.
    private var deadline: Double
    /// Time spent waiting on the client so far.
    private var waited = 0.0
    /// Store times and bytes received, at most a window apart from the newest, once the
    /// answer began.
    private var samples: [(time: Double, bytes: Int64)] = []

    package init(limits: TransferLimits, startedAt: Double) {
        self.limits = limits
        started = startedAt
        deadline = limits.timeout
    }

    /// The store's time at `now`: since the start, less the waits on the client.
    private func storeTime(_ now: Double) -> Double { now - started - waited }

    /// A streamed answer's head went on at `now`: its body has `streamTimeout` from here.
    package mutating func answered(at now: Double) {
        deadline = storeTime(now) + limits.streamTimeout
    }

    /// `seconds` went waiting on the client: none of it counts.
    package mutating func waitedOnClient(_ seconds: Double) {
        // The store's time stops meanwhile, so the rate's window does too.
        waited += max(0, seconds)
    }

    /// The verdict at `now`, with `received` body bytes so far; the rate clock starts when the
    /// answer began (`headSeen`).
    package mutating func check(received: Int64, headSeen: Bool, now: Double) -> Verdict {
        let time = storeTime(now)
        if time >= deadline { return .pastDeadline(seconds: time) }
        guard headSeen, limits.minRate > 0 else { return .going }
        if let last = samples.last, time - last.time < limits.window / 20 { return judged(received, time) }
        samples.append((time, received))
        while samples.count > 1, samples[1].time <= time - limits.window { samples.removeFirst() }
        return judged(received, time)
    }

    private func judged(_ received: Int64, _ time: Double) -> Verdict {
        guard let oldest = samples.first, time - oldest.time >= limits.window else { return .going }
        let span = time - oldest.time
        let bytes = received - oldest.bytes
        return Double(bytes) < Double(limits.minRate) * span ? .tooSlow(bytes: bytes, seconds: span) : .going
    }
}
