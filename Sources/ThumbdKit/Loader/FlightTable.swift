import Foundation
import Locking

/// The coalescing table: one flight per cache key, the callers waiting for each, and each
/// flight's task and current transfer, all behind one lock.
///
/// A caller is a waiter from `registerWaiter` on: it may be cancelled before it has joined a
/// flight (between `load` asking for an id and its continuation existing), and is then
/// answered as soon as it tries to join. The table only decides; the loader resumes
/// continuations, cancels tasks and changes priorities after the lock is released.
final class FlightTable<Image: Sendable>: Sendable {
    typealias Continuation = CheckedContinuation<ImageResponse<Image>, any Error>

    struct Waiter {
        let continuation: Continuation
        let priority: LoadPriority
    }

    /// A flight and what changes while it runs.
    private struct Entry {
        let flight: LoadFlight<Image>
        var waiters: [UInt64: Waiter] = [:]
        var task: Task<Void, Never>?
        /// The transfer now running, for priority changes and for keeping its bytes on cancel.
        var transfer: NetworkTransfer?

        /// The highest priority of those waiting.
        var priority: LoadPriority {
            waiters.values.map(\.priority).max() ?? .low
        }
    }

    private struct State {
        /// The flights accepting waiters, by cache key. A flight every waiter left is removed
        /// at once (abandoned): it may still be running, but it can start no transfer and a
        /// new load of its key starts a new flight.
        var flights: [String: Entry] = [:]
        /// Waiters that joined a flight, with its key.
        var joined: [UInt64: String] = [:]
        /// Waiters registered that have not joined a flight yet.
        var pending: Set<UInt64> = []
        /// Waiters cancelled in that window.
        var cancelled: Set<UInt64> = []
        /// Waiters and flights are numbered from one counter.
        var lastID: UInt64 = 0

        mutating func nextID() -> UInt64 {
            lastID += 1
            return lastID
        }
    }

    private let state = Locked(State())

    /// Flights under way (one per URL however many callers wait).
    var count: Int {
        state.withLock { $0.flights.count }
    }

    /// A new waiter's id, before its continuation exists.
    func registerWaiter() -> UInt64 {
        state.withLock { state in
            let id = state.nextID()
            state.pending.insert(id)
            return id
        }
    }

    enum JoinStep {
        case cancelled
        case hit(ImageResponse<Image>)
        /// Joined the flight under way; `raisedTo` when this waiter raised its priority.
        case joined(NetworkTransfer?, raisedTo: LoadPriority?)
        /// A new flight, to be run (and its task attached).
        case started(LoadFlight<Image>)
    }

    /// Waiter `id` joins the flight for `key`, or starts one. `freshHit` is asked under the
    /// lock before a flight starts: a flight that has just finished filled the memory tier
    /// before leaving the table, so this leaves no window for a second transfer.
    func join(_ id: UInt64, key: String, url: URL, priority: LoadPriority, staleMemory: MemoryImageCache<Image>.Entry?,
              continuation: Continuation, freshHit: () -> ImageResponse<Image>?) -> JoinStep {
        state.withLock { state -> JoinStep in
            state.pending.remove(id)
            if state.cancelled.remove(id) != nil { return .cancelled }
            let waiter = Waiter(continuation: continuation, priority: priority)
            if var entry = state.flights[key] {
                let before = entry.priority
                entry.waiters[id] = waiter
                state.flights[key] = entry
                state.joined[id] = key
                return .joined(entry.transfer, raisedTo: priority > before ? priority : nil)
            }
            if let hit = freshHit() { return .hit(hit) }
            let flight = LoadFlight<Image>(id: state.nextID(), key: key, url: url, staleMemory: staleMemory)
            state.flights[key] = Entry(flight: flight, waiters: [id: waiter])
            state.joined[id] = key
            return .started(flight)
        }
    }

    /// The task running `flight`; false when the flight has already ended or been abandoned
    /// (the caller then cancels the task).
    func attach(_ task: Task<Void, Never>, to flight: LoadFlight<Image>) -> Bool {
        state.withLock { state in
            guard state.flights[flight.key]?.flight.id == flight.id else { return false }
            state.flights[flight.key]?.task = task
            return true
        }
    }

    enum LeaveStep {
        case nothing
        /// Others still wait: answer this one; lower the transfer's priority to theirs.
        case answer(Continuation, lowerTo: (NetworkTransfer, LoadPriority)?)
        /// It was the last: answer it, and stop the flight's transfer and task.
        case abandon(Continuation, LoadFlight<Image>, NetworkTransfer?, Task<Void, Never>?)
    }

    /// The caller of waiter `id` cancelled.
    func leave(_ id: UInt64) -> LeaveStep {
        state.withLock { state -> LeaveStep in
            if state.pending.remove(id) != nil {
                state.cancelled.insert(id)
                return .nothing
            }
            guard let key = state.joined.removeValue(forKey: id), var entry = state.flights[key],
                  let waiter = entry.waiters.removeValue(forKey: id)
            else {
                return .nothing  // already answered
            }
            if entry.waiters.isEmpty {
                state.flights.removeValue(forKey: key)
                return .abandon(waiter.continuation, entry.flight, entry.transfer, entry.task)
            }
            state.flights[key] = entry
            let remaining = entry.priority
            if waiter.priority > remaining, let transfer = entry.transfer {
                return .answer(waiter.continuation, lowerTo: (transfer, remaining))
            }
            return .answer(waiter.continuation, lowerTo: nil)
        }
    }

    /// Registers `transfer` as the flight's current one, and returns the priority to run it
    /// at; nil when the flight was abandoned (no transfer may start).
    func register(_ transfer: NetworkTransfer, in flight: LoadFlight<Image>) -> LoadPriority? {
        state.withLock { state -> LoadPriority? in
            guard var entry = state.flights[flight.key], entry.flight.id == flight.id else { return nil }
            entry.transfer = transfer
            state.flights[flight.key] = entry
            return entry.priority
        }
    }

    func unregister(_ transfer: NetworkTransfer, from flight: LoadFlight<Image>) {
        state.withLock { state in
            guard let entry = state.flights[flight.key], entry.flight.id == flight.id, entry.transfer === transfer else { return }
            state.flights[flight.key]?.transfer = nil
        }
    }

    /// `flight` has its result: it leaves the table, and the continuations of its waiters
    /// are handed back to be resumed (none when it was abandoned).
    func finish(_ flight: LoadFlight<Image>) -> [Continuation] {
        state.withLock { state in
            guard let entry = state.flights[flight.key], entry.flight.id == flight.id else { return [] }
            state.flights.removeValue(forKey: flight.key)
            for id in entry.waiters.keys { state.joined.removeValue(forKey: id) }
            return entry.waiters.values.map(\.continuation)
        }
    }
}
