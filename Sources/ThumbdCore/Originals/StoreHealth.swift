import Clocks
import Locking
import Logging

/// How a store thumbd fetches from (the S3 endpoint, an origin host, the shared tier) is
/// doing, judged from the requests made to it. It goes down on failures counted across
/// requests: `failuresToOpen` subjects (objects, URLs) whose requests failed in a way that
/// says the store is down (a timeout, a cut transfer, a refused connection, a 5xx) or are
/// still waiting for their answer after `slowAfter`, with no answer in between. Never
/// because one request is still running, nor because one subject fails again and again: a
/// slow or broken object stays that object's fault. While it is down nothing is
/// asked of it, so callers answer at once (with what they hold, else 503); every
/// `probeInterval` one caller asks whether it answers again (`probe`, bounded by its own short
/// timeout), and the first answer, the probe's or any request's, ends the outage. Time from
/// the injected clock.
package final class StoreHealth: Sendable {
    package enum Defaults {
        package static let failuresToOpen = 2
        package static let probeInterval = 0.5
        /// A request still waiting for its answer after this counts as failing.
        package static let slowAfter = 1.0
        /// How long a probe waits for the store (`OriginStore.probe`, `S3Client.probe`): a
        /// store that answers does so far sooner.
        package static let probeTimeout = 0.5
    }

    /// A request the store may be asked; hand it back to `finished`.
    package struct Ticket: Sendable {
        fileprivate let id: Int
        fileprivate let subject: String
        /// This request is the trial of a store that is down (there is no probe).
        fileprivate let isTrial: Bool
    }

    /// What changed, for a log line.
    package enum Change: Equatable, Sendable {
        case none
        /// The first failure of an outage.
        case wentDown
        /// The first answer after an outage that began `seconds` ago.
        case cameBack(seconds: Double)

        /// A `report` that logs each change of `store` (its description in a line): a warning
        /// when it goes down, saying what is done `meanwhile`, a notice when it answers again.
        package static func logging(_ store: String, meanwhile: String, to logger: Logger) -> @Sendable (Change) -> Void {
            { change in
                switch change {
                case .wentDown: logger.warning("\(store) is unavailable; \(meanwhile) until it answers")
                case .cameBack(let seconds): logger.notice("\(store) answers again after \(Int(seconds)) s")
                case .none: break
                }
            }
        }
    }

    private struct State {
        /// Since when it is down, while it is.
        var downSince: Double?
        /// The subjects that failed since the last answer.
        var failing: Set<String> = []
        /// The subject of the last failure: what a probe asks for.
        var lastFailed = ""
        var probing = false
        var lastProbe = -Double.infinity
        /// Requests waiting for their answer: subject and when each began.
        var waiting: [Int: (subject: String, since: Double)] = [:]
        var nextTicket = 0

        mutating func ticket(_ subject: String, trial: Bool, at now: Double) -> Ticket {
            nextTicket += 1
            waiting[nextTicket] = (subject, now)
            return Ticket(id: nextTicket, subject: subject, isTrial: trial)
        }

        /// Failing subjects, with those still waiting past `slowAfter`.
        func failingCount(at now: Double, slowAfter: Double) -> Int {
            var subjects = failing
            for request in waiting.values where now - request.since >= slowAfter { subjects.insert(request.subject) }
            return subjects.count
        }

        /// A subject to probe about when none failed yet: one still waiting.
        var waitingSubject: String? { waiting.values.min { $0.since < $1.since }?.subject }

        /// Down from `now` once `failuresToOpen` subjects fail, those still waiting past
        /// `slowAfter` counted; a probe then asks about the last that failed, else about
        /// one still waiting (`asking` when none is).
        mutating func goesDown(at now: Double, failuresToOpen: Int, slowAfter: Double, asking subject: String) -> Change {
            guard downSince == nil, failingCount(at: now, slowAfter: slowAfter) >= failuresToOpen else { return .none }
            downSince = now
            // The next request probes at once: a store that answers again (even with a
            // refusal) is asked at once, not after a pause.
            lastProbe = -.infinity
            if lastFailed.isEmpty { lastFailed = waitingSubject ?? subject }
            return .wentDown
        }

        /// What a request about `subject` may do now: go, wait for the store, or probe it.
        mutating func decide(_ subject: String, at now: Double, probeInterval: Double, probes: Bool) -> Decision {
            guard let since = downSince else { return .admit(ticket(subject, trial: false, at: now)) }
            guard !probing, now - lastProbe >= probeInterval else {
                return .refuse("it failed \(Int(now - since)) s ago; asking again shortly")
            }
            probing = true
            lastProbe = now
            return probes ? .probe(lastFailed: lastFailed) : .admit(ticket(subject, trial: true, at: now))
        }

        /// An answer came at `now`: failures are forgotten and an outage ends; requests still
        /// waiting are slow again only `slowAfter` from now.
        mutating func cameBack(at now: Double) -> Change {
            failing.removeAll()
            guard let since = downSince else { return .none }
            downSince = nil
            for (id, request) in waiting { waiting[id] = (request.subject, now) }
            return .cameBack(seconds: now - since)
        }
    }

    package let failuresToOpen: Int
    package let probeInterval: Double
    package let slowAfter: Double
    private let probe: (@Sendable (_ lastFailed: String) -> Bool)?
    private let report: @Sendable (Change) -> Void
    private let clock: any MonotonicClock
    private let state = Locked(State())

    /// `probe` asks the store (about the subject that failed last) whether it answers at all,
    /// within its own short timeout; nil: while down, one request at a time goes as the trial.
    /// `report` is told when the store goes down and comes back.
    package init(failuresToOpen: Int = Defaults.failuresToOpen, probeInterval: Double = Defaults.probeInterval,
                 slowAfter: Double = Defaults.slowAfter, clock: any MonotonicClock,
                 probe: (@Sendable (_ lastFailed: String) -> Bool)? = nil, report: @escaping @Sendable (Change) -> Void = { _ in }) {
        self.failuresToOpen = max(1, failuresToOpen)
        self.probeInterval = probeInterval
        self.slowAfter = slowAfter
        self.clock = clock
        self.probe = probe
        self.report = report
    }

    fileprivate enum Decision {
        case admit(Ticket)
        case refuse(String)
        case probe(lastFailed: String)
    }

    /// A ticket to ask the store now about `subject`, or why not (it is down). While down,
    /// the caller that comes when a probe is due runs it first (blocking, within the probe's
    /// timeout), and goes on if the store answered.
    package func admit(_ subject: String = "") -> Result<Ticket, StoreUnavailable> {
        let now = clock.now()
        let (decision, change) = state.withLock { s -> (Decision, Change) in
            let change = s.goesDown(at: now, failuresToOpen: failuresToOpen, slowAfter: slowAfter, asking: subject)
            return (s.decide(subject, at: now, probeInterval: probeInterval, probes: probe != nil), change)
        }
        if change != .none { report(change) }
        switch decision {
        case .admit(let ticket): return .success(ticket)
        case .refuse(let reason): return .failure(StoreUnavailable(reason: reason))
        case .probe(let lastFailed):
            let answers = probe?(lastFailed) ?? false
            let probed = clock.now()
            let change = state.withLock { s -> Change in
                s.probing = false
                s.lastProbe = probed
                return answers ? s.cameBack(at: probed) : .none
            }
            if change != .none { report(change) }
            guard answers else { return .failure(StoreUnavailable(reason: "it does not answer yet; asking again shortly")) }
            return .success(state.withLock { $0.ticket(subject, trial: false, at: probed) })
        }
    }

    /// The store's answer to `ticket` began (its status line came): the request no longer
    /// waits for the store, however long its body takes; how it ends is told to `finished`.
    package func answering(_ ticket: Ticket) {
        state.withLock { $0.waiting[ticket.id] = nil }
    }

    /// The request of `ticket` ended: with an answer, or with a failure that says the store is
    /// down (`failed`).
    @discardableResult
    package func finished(_ ticket: Ticket, failed: Bool) -> Change {
        let now = clock.now()
        let change = state.withLock { s -> Change in
            s.waiting[ticket.id] = nil
            if ticket.isTrial { s.probing = false }
            guard failed else { return s.cameBack(at: now) }
            s.lastFailed = ticket.subject
            if s.downSince != nil {
                // A trial that failed is the probe of this interval.
                if ticket.isTrial { s.lastProbe = now }
                return .none
            }
            s.failing.insert(ticket.subject)
            return s.goesDown(at: now, failuresToOpen: failuresToOpen, slowAfter: slowAfter, asking: ticket.subject)
        }
        if change != .none { report(change) }
        return change
    }

    /// Admits, runs and finishes one request about `subject`: every caller's one sequence.
    /// `refused` says why a store that is down was not asked; an error `isOutage` calls an
    /// outage, or a value `failedAnswer` calls a failure (a 5xx, a body cut short), counts
    /// towards an outage, and anything else ends one. `request` may call `answered` once the
    /// store's answer began (`answering`).
    package func run<Value, Failure: Error>(
        _ subject: String, refused: (StoreUnavailable) -> Failure, isOutage: (Failure) -> Bool,
        failedAnswer: (Value) -> Bool = { _ in false }, _ request: (_ answered: () -> Void) throws(Failure) -> Value
    ) -> Result<Value, Failure> {
        let ticket: Ticket
        switch admit(subject) {
        case .success(let admitted): ticket = admitted
        case .failure(let refusal): return .failure(refused(refusal))
        }
        do throws(Failure) {
            let value = try request { answering(ticket) }
            finished(ticket, failed: failedAnswer(value))
            return .success(value)
        } catch {
            finished(ticket, failed: isOutage(error))
            return .failure(error)
        }
    }

    /// Whether a request now would be admitted without a probe (the store is not down).
    package var isAnswering: Bool { state.withLock { $0.downSince == nil } }
}

/// Nothing is asked of a store that is down.
package struct StoreUnavailable: Error, Sendable, Equatable {
    package let reason: String

    package init(reason: String) {
        self.reason = reason
    }
}
