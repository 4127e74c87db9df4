import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ThumbdKit

/// A phone's network link as one pipe for all of a strategy's transfers: each request waits
/// `latency` before it starts, and body bytes cross at `bytesPerSecond` in total, shared
/// equally among the transfers that have bytes waiting (processor sharing, roughly what TCP
/// flows through one bottleneck get). ThumbdKit's `ThrottledTransport` paces each transfer on
/// its own, so six parallel transfers would get six times the bandwidth; a phone has one radio.
///
/// The wrapped transport (URLSession over loopback) runs ahead into this link's buffers; what
/// counts, and what the client sees, is what the link has delivered. So the figures do not
/// depend on loopback speed, and nothing touches system settings (no tc, no sysctl).
///
/// Deliveries run on one serial queue, a tick every few milliseconds of wall time: each
/// transfer's events stay in order and never run concurrently, as `ThumbdTransport` requires.
/// A tick's byte budget comes from the wall time since the last one, so a late tick delivers
/// more rather than slowing the link down.
final class SharedLinkTransport: ThumbdTransport, @unchecked Sendable {
    struct Settings: Sendable {
        /// Body bytes per simulated second, for all transfers together.
        var bytesPerSecond: Double
        /// Simulated seconds before each request starts.
        var latency: Double
        /// Simulated seconds per wall second.
        var timeScale: Double
    }

    /// The end of every transfer still under way when a run ends.
    struct Disconnected: Error {}

    /// Wall seconds between deliveries.
    private static let tickSeconds = 0.004

    let settings: Settings
    private let inner: any ThumbdTransport
    private let onTransferEnd: @Sendable (LinkTransferReport) -> Void
    private let queue = DispatchQueue(label: "thumbd-scroll.link", qos: .userInitiated)

    private let lock = NSLock()
    // Guarded by `lock`, as are the fields of every LinkTransfer.
    private var transfers: [UInt64: LinkTransfer] = [:]
    private var lastID: UInt64 = 0
    private var ticking = false
    private var lastTick = ContinuousClock.now
    private var budget = 0.0
    private var requestsStarted = 0
    private var bytesDelivered = 0

    /// `onTransferEnd` is called once per transfer, from any thread, when it completes, fails
    /// or is cancelled.
    init(wrapping inner: any ThumbdTransport, settings: Settings, onTransferEnd: @escaping @Sendable (LinkTransferReport) -> Void) {
        self.inner = inner
        self.settings = settings
        self.onTransferEnd = onTransferEnd
    }

    /// Requests started and body bytes delivered so far.
    var totals: (requests: Int, bytes: Int) {
        lock.guarded { (requests: requestsStarted, bytes: bytesDelivered) }
    }

    /// Body bytes delivered and expected (from `Content-Length`) of the latest transfer of
    /// `url` still under way; nil when none is.
    func progress(for url: URL) -> (received: Int, expected: Int?)? {
        lock.guarded {
            transfers.values.filter { $0.url == url }.max { $0.id < $1.id }.map { (received: $0.delivered, expected: $0.expectedLength) }
        }
    }

    func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask {
        let url = request.url ?? URL(fileURLWithPath: "/")
        let rangeStart = request.value(forHTTPHeaderField: "Range").flatMap(Self.rangeStart)
        let (transfer, startTicking) = lock.guarded { () -> (LinkTransfer, Bool) in
            lastID += 1
            let transfer = LinkTransfer(id: lastID, url: url, rangeStart: rangeStart, priority: priority, events: events)
            transfers[transfer.id] = transfer
            requestsStarted += 1
            guard !ticking else { return (transfer, false) }
            ticking = true
            lastTick = ContinuousClock.now
            budget = 0
            return (transfer, true)
        }
        if startTicking { scheduleTick() }
        let wait = settings.latency / settings.timeScale
        queue.asyncAfter(deadline: .now() + wait) { [self] in begin(transfer, request) }
        return LinkTask(link: self, transfer: transfer)
    }

    /// Ends every transfer under way with a failure (so no caller waits forever), at the end
    /// of a run.
    func disconnectAll() {
        let dropped = lock.guarded { () -> [(LinkTransfer, (any TransportTask)?)] in
            let all = transfers.values.sorted { $0.id < $1.id }
            transfers.removeAll()
            for transfer in all { transfer.hungUp = true }
            return all.map { ($0, $0.innerTask) }
        }
        for (transfer, task) in dropped {
            task?.cancel()
            queue.async { [self] in deliver(.finished(Disconnected()), to: transfer) }
        }
    }

    // MARK: - Transfers

    fileprivate func cancel(_ transfer: LinkTransfer) {
        let (task, report) = lock.guarded { () -> ((any TransportTask)?, LinkTransferReport?) in
            guard !transfer.cancelled else { return (nil, nil) }
            transfer.cancelled = true
            transfers[transfer.id] = nil
            guard !transfer.reported else { return (transfer.innerTask, nil) }
            transfer.reported = true
            return (transfer.innerTask, transfer.report(completed: false))
        }
        task?.cancel()
        if let report { onTransferEnd(report) }
    }

    fileprivate func setPriority(_ priority: Float, of transfer: LinkTransfer) {
        let task = lock.guarded { () -> (any TransportTask)? in
            transfer.priority = priority
            return transfer.innerTask
        }
        task?.setPriority(priority)
    }

    /// After the latency: the request really starts.
    private func begin(_ transfer: LinkTransfer, _ request: URLRequest) {
        let priority = lock.guarded { () -> Float? in
            transfer.cancelled || transfer.hungUp ? nil : transfer.priority
        }
        guard let priority else { return }
        let task = inner.start(request, priority: priority) { [self] event in receive(event, for: transfer) }
        let stopNow = lock.guarded { () -> Bool in
            if !(transfer.cancelled || transfer.hungUp) { transfer.innerTask = task }
            return transfer.cancelled || transfer.hungUp
        }
        if stopNow { task.cancel() }
    }

    /// An event from the wrapped transport: queued until the link has carried it.
    private func receive(_ event: TransportEvent, for transfer: LinkTransfer) {
        lock.guarded {
            guard !transfer.cancelled, !transfer.hungUp, !transfer.innerFinished else { return }
            transfer.enqueue(event)
        }
    }

    private func scheduleTick() {
        queue.asyncAfter(deadline: .now() + Self.tickSeconds) { [self] in tick() }
    }

    /// Hands out the bytes the link carried since the last tick, equal shares to every transfer
    /// with bytes waiting (what one leaves unused goes to the others), with the heads and ends
    /// that come between. Runs on the queue.
    private func tick() {
        let (deliveries, keepTicking) = lock.guarded { () -> ([(LinkTransfer, TransportEvent)], Bool) in
            let now = ContinuousClock.now
            budget += (now - lastTick).inSeconds * settings.timeScale * settings.bytesPerSecond
            lastTick = now
            var out: [(LinkTransfer, TransportEvent)] = []
            let active = transfers.keys.sorted().compactMap { transfers[$0] }
            for transfer in active { transfer.takeControlEvents(into: &out) }
            var hungry = active.filter(\.wantsBytes)
            let offered = Int(budget)
            var available = offered
            while available > 0, !hungry.isEmpty {
                let share = max(1, available / hungry.count)
                for transfer in hungry where available > 0 {
                    let slice = transfer.takeBytes(upTo: min(share, available))
                    available -= slice.count
                    bytesDelivered += slice.count
                    if !slice.isEmpty { out.append((transfer, .data(slice))) }
                    // The end that follows its last byte.
                    transfer.takeControlEvents(into: &out)
                }
                hungry = hungry.filter(\.wantsBytes)
            }
            // A pipe stores no capacity: what no transfer could use now is lost.
            budget = hungry.isEmpty ? 0 : budget - Double(offered - available)
            for transfer in active where transfer.fullyTaken { transfers[transfer.id] = nil }
            if transfers.isEmpty { ticking = false }
            return (out, !transfers.isEmpty)
        }
        for (transfer, event) in deliveries { deliver(event, to: transfer) }
        if keepTicking { scheduleTick() }
    }

    /// One event to the client, unless it cancelled; an end also sends the report.
    private func deliver(_ event: TransportEvent, to transfer: LinkTransfer) {
        let (deliverIt, report) = lock.guarded { () -> (Bool, LinkTransferReport?) in
            guard !transfer.cancelled else { return (false, nil) }
            guard case .finished(let error) = event else { return (true, nil) }
            guard !transfer.reported else { return (true, nil) }
            transfer.reported = true
            return (true, transfer.report(completed: error == nil))
        }
        guard deliverIt else { return }
        transfer.events(event)
        if let report { onTransferEnd(report) }
    }

    /// `N` of `bytes=N-`.
    private static func rangeStart(_ field: String) -> Int? {
        let text = field.trimmingCharacters(in: .whitespaces).lowercased()
        guard text.hasPrefix("bytes="), text.hasSuffix("-") else { return nil }
        return Int(text.dropFirst("bytes=".count).dropLast())
    }
}

/// The handle a client gets for a transfer on the link.
private struct LinkTask: TransportTask {
    let link: SharedLinkTransport
    let transfer: LinkTransfer

    func cancel() {
        link.cancel(transfer)
    }

    func setPriority(_ priority: Float) {
        link.setPriority(priority, of: transfer)
    }
}
