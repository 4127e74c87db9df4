import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One throttled transfer: events from the wrapped transport are queued with the time each
/// may be delivered (never earlier than the one before it), and delivered in order.
final class PacedTransfer: TransportTask, @unchecked Sendable {
    private struct Pending {
        var due: DispatchTime
        var event: TransportEvent
    }

    /// Chunks are cut to this size so pacing is smooth and a cancel lands between them.
    private static let sliceBytes = 16 * 1024

    private let lock = NSLock()
    private let queue: DispatchQueue
    private let settings: LockedState<ThrottledTransport.Settings>
    private let events: @Sendable (TransportEvent) -> Void
    private var inner: (any TransportTask)?
    private var priority: Float
    private var cancelled = false
    private var pending: [Pending] = []
    private var head = 0
    private var lastDue = DispatchTime.now()
    private var drainScheduled = false

    init(queue: DispatchQueue, settings: LockedState<ThrottledTransport.Settings>, priority: Float,
         events: @escaping @Sendable (TransportEvent) -> Void) {
        self.queue = queue
        self.settings = settings
        self.priority = priority
        self.events = events
    }

    func begin(_ transport: any ThumbdTransport, _ request: URLRequest) {
        let startPriority = lock.criticalSection { () -> Float? in cancelled ? nil : priority }
        guard let startPriority else { return }
        let task = transport.start(request, priority: startPriority) { [self] event in enqueue(event) }
        let cancelledMeanwhile = lock.criticalSection { () -> Bool in
            if !cancelled { inner = task }
            return cancelled
        }
        if cancelledMeanwhile { task.cancel() }
    }

    func cancel() {
        let task = lock.criticalSection { () -> (any TransportTask)? in
            cancelled = true
            pending.removeAll()
            head = 0
            drainScheduled = false
            return inner
        }
        task?.cancel()
    }

    func setPriority(_ priority: Float) {
        let task = lock.criticalSection { () -> (any TransportTask)? in
            self.priority = priority
            return inner
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
        let firstDrain = lock.criticalSection { () -> DispatchTime? in
            guard !cancelled else { return nil }
            for item in items {
                let start = max(lastDue, DispatchTime.now())
                lastDue = start + item.delay
                pending.append(Pending(due: lastDue, event: item.event))
            }
            // One drain outstanding at a time, set for the earliest event waiting.
            guard !drainScheduled, head < pending.count else { return nil }
            drainScheduled = true
            return pending[head].due
        }
        if let firstDrain {
            queue.asyncAfter(deadline: firstDrain) { [self] in drain() }
        }
    }

    /// Delivers, in order, every event whose time has come, then sets the next drain. Runs on
    /// the serial queue.
    private func drain() {
        while true {
            let (next, later) = lock.criticalSection { () -> (TransportEvent?, DispatchTime?) in
                guard !cancelled, head < pending.count else {
                    drainScheduled = false
                    return (nil, nil)
                }
                guard pending[head].due <= DispatchTime.now() else { return (nil, pending[head].due) }
                let event = pending[head].event
                head += 1
                if head == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    head = 0
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
