import Clocks
import Foundation
import Logging
import Synchronization

/// Applies what the other replicas purged (`SharedPurges`): a round at start, before this
/// replica serves, then one every `interval` on a thread of its own, each with a heartbeat
/// when one is due. It waits on the injected clock: tests run rounds and move time.
package final class PurgeFollower: Sendable {
    private let purges: SharedPurges
    /// What a record asks of this replica (`SourcePurge.apply`).
    private let apply: @Sendable (PurgeRecord) -> Void
    private let clock: any MonotonicClock
    private let logger: Logger
    private let lastHeartbeat = Mutex(-Double.infinity)
    private let stopped = Atomic<Bool>(false)

    package init(purges: SharedPurges, apply: @escaping @Sendable (PurgeRecord) -> Void, clock: any MonotonicClock, logger: Logger) {
        self.purges = purges
        self.apply = apply
        self.clock = clock
        self.logger = logger
    }

    /// The heartbeat when `SharedPurges.Defaults.heartbeat` has passed since the last one the
    /// store took, then every record not applied yet; false when the records could not be read.
    @discardableResult
    package func round() -> Bool {
        let now = clock.now()
        if lastHeartbeat.withLock({ now - $0 >= SharedPurges.Defaults.heartbeat }), purges.heartbeat() {
            lastHeartbeat.withLock { $0 = now }
        }
        return purges.catchUp(apply: apply)
    }

    /// The first round (purges published while this replica was down), then the thread.
    package func start() {
        if !round() {
            logger.warning("the shared tier's purges could not be read at start; they are applied once the store answers")
        }
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                clock.sleep(seconds: purges.interval)
                if stopped.load(ordering: .relaxed) { return }
                round()
            }
        }
        thread.name = "thumbd-purge-follower"
        thread.start()
    }

    /// Stops following and takes the heartbeat away: a replica that leaves is not waited for.
    package func stop() {
        stopped.store(true, ordering: .relaxed)
        purges.leave()
    }
}
