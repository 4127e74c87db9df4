import Clocks
import HTTP
import Locking

/// How a store thumbd fetches from (the S3 endpoint, an origin host) is doing, judged from the
/// requests made to it. A failure that says it is down, a timeout included, pauses it for
/// `pause` seconds from when the failure came; a request still waiting after `slowAfter`
/// seconds makes it slow. While it is paused or slow nothing more is asked of it: callers
/// answer at once (with what they hold, else 503), instead of each waiting out a timeout of its
/// own behind the others. The first answer ends the outage. Time from the injected clock.
package final class StoreHealth: Sendable {
    /// A request the store may be asked; hand it back to `finished`.
    package struct Ticket: Sendable {
        fileprivate let id: Int

        package init(id: Int) {
            self.id = id
        }
    }

    /// What `finished` changed, for a log line.
    package enum Change: Equatable {
        case none
        /// The first failure of an outage.
        case wentDown
        /// The first answer after an outage that began `seconds` ago.
        case cameBack(seconds: Double)
    }

    private struct State {
        /// Since when it fails, while it does.
        var downSince: Double?
        var pausedUntil = -Double.infinity
        /// Requests under way, by ticket, with when each began.
        var asking: [Int: Double] = [:]
        var nextTicket = 0
    }

    package let pause: Double
    package let slowAfter: Double
    private let clock: any MonotonicClock
    private let state = Locked(State())

    package init(pause: Double = 1, slowAfter: Double = 1, clock: any MonotonicClock) {
        self.pause = pause
        self.slowAfter = slowAfter
        self.clock = clock
    }

    /// A ticket to ask the store now, or why not (paused after a failure, or slow).
    package func admit() -> Result<Ticket, StoreUnavailable> {
        let now = clock.now()
        return state.withLock { s in
            if now < s.pausedUntil, let since = s.downSince {
                return .failure(StoreUnavailable(reason: "it failed \(Int(now - since)) s ago; asking again shortly"))
            }
            if let oldest = s.asking.values.min(), now - oldest >= slowAfter {
                return .failure(StoreUnavailable(reason: "a request has waited \(Int(now - oldest)) s for it"))
            }
            s.nextTicket += 1
            s.asking[s.nextTicket] = now
            return .success(Ticket(id: s.nextTicket))
        }
    }

    /// The request of `ticket` ended: with an answer, or with a failure that says the store is
    /// down (`failed`), which pauses it from now.
    @discardableResult
    package func finished(_ ticket: Ticket, failed: Bool) -> Change {
        let now = clock.now()
        return state.withLock { s in
            s.asking[ticket.id] = nil
            if failed {
                let began = s.downSince == nil
                if began { s.downSince = now }
                s.pausedUntil = now + pause
                return began ? .wentDown : .none
            }
            guard let since = s.downSince else { return .none }
            s.downSince = nil
            s.pausedUntil = -.infinity
            return .cameBack(seconds: now - since)
        }
    }

    /// Whether a request now would be admitted (not paused, none waiting too long).
    package var isAnswering: Bool {
        let now = clock.now()
        return state.withLock { s in
            !(now < s.pausedUntil && s.downSince != nil) && !(s.asking.values.min().map { now - $0 >= slowAfter } ?? false)
        }
    }
}

/// Nothing is asked of a store that is paused or slow.
package struct StoreUnavailable: Error, Sendable, Equatable {
    package let reason: String

    package init(reason: String) {
        self.reason = reason
    }
}
