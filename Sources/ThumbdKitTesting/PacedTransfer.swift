import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import ThumbdKit

/// One throttled transfer: events from the wrapped transport are queued with the time each
/// may be delivered (never earlier than the one before it), and delivered in order.
final class PacedTransfer: TransportTask, Sendable {
    private struct Pending {
        var due: DispatchTime
        var event: TransportEvent
    }

    /// Chunks are cut to this size so pacing is smooth and a cancel lands between them.
    private static let sliceBytes = 16 * 1024

    /// The wrapped transfer and the events waiting their time, behind one lock.
    private struct State {
        var inner: (any TransportTask)?
        var priority: Float
        var cancelled = false
        var pending: [Pending] = []
        var head = 0
        var lastDue = DispatchTime.now()
        var drainScheduled = false
    }

    private let queue: DispatchQueue
    private let settings: Locked<ThrottledTransport.Settings>
    private let events: @Sendable (TransportEvent) -> Void
    private let state: Locked<State>

    init(queue: DispatchQueue, settings: Locked<ThrottledTransport.Settings>, priority: Float,
         events: @escaping @Sendable (TransportEvent) -> Void) {
        self.queue = queue
        self.settings = settings
        self.events = events
        state = Locked(State(priority: priority))
    }

    func begin(_ transport: any ThumbdTransport, _ request: URLRequest) {
        let startPriority = state.withLock { state -> Float? in state.cancelled ? nil : state.priority }
        guard let startPriority else { return }
        let task = transport.start(request, priority: startPriority) { [self] event in enqueue(event) }
        let cancelledMeanwhile = state.withLock { state -> Bool in
            if !state.cancelled { state.inner = task }
            return state.cancelled
        }
        if cancelledMeanwhile { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> (any TransportTask)? in
            state.cancelled = true
            state.pending.removeAll()
            state.head = 0
            state.drainScheduled = false
            return state.inner
        }
        task?.cancel()
    }

    func setPriority(_ priority: Float) {
        let task = state.withLock { state -> (any TransportTask)? in
            state.priority = priority
            return state.inner
        }
        task?.setPriority(priority)
    }

    private func enqueue(_ event: TransportEvent) {
        let limits = settings.withLock { $0 }
        var items: [(event: TransportEvent, delay: TimeInterval)] = []
        switch event {
        case .data(let data):
            if let rate = limits.bytesPerSecond, rate > 0 {
                var offset = data.startIndex
                while offset < data.endIndex {
                    let end = min(offset + Self.sliceBytes, data.endIndex)
                    items.append((TransportEvent.data(data.subdata(in: offset..<end)), Double(end - offset) / Double(rate)))
                    offset = end
                }
            } else {
                items.append((event, 0))
            }
        case .response, .finished:
            items.append((event, limits.jitter > 0 ? Double.random(in: 0...limits.jitter) : 0))
        }
        let firstDrain = state.withLock { state -> DispatchTime? in
            guard !state.cancelled else { return nil }
            for item in items {
                let start = max(state.lastDue, DispatchTime.now())
                state.lastDue = start + item.delay
                state.pending.append(Pending(due: state.lastDue, event: item.event))
            }
            // One drain outstanding at a time, set for the earliest event waiting.
            guard !state.drainScheduled, state.head < state.pending.count else { return nil }
            state.drainScheduled = true
            return state.pending[state.head].due
        }
        if let firstDrain {
            queue.asyncAfter(deadline: firstDrain) { [self] in drain() }
        }
    }

    /// Delivers, in order, every event whose time has come, then sets the next drain. Runs on
    /// the serial queue.
    private func drain() {
        while true {
            let (next, later) = state.withLock { state -> (TransportEvent?, DispatchTime?) in
                guard !state.cancelled, state.head < state.pending.count else {
                    state.drainScheduled = false
                    return (nil, nil)
                }
                guard state.pending[state.head].due <= DispatchTime.now() else { return (nil, state.pending[state.head].due) }
                let event = state.pending[state.head].event
                state.head += 1
                if state.head == state.pending.count {
                    state.pending.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return (event, nil)
            }
            if let next {
                events(next)
                continue
            }
            if let later { queue.asyncAfter(deadline: later) { [self] in drain() } }
            return
        }
    }
}
