import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import ThumbdKit

/// A phone's network link as one pipe for all of a client's transfers: each request waits
/// `latency` before it starts, and body bytes cross at `bytesPerSecond` in total, shared
/// equally among the transfers that have bytes waiting (processor sharing, roughly what TCP
/// flows through one bottleneck get). `ThrottledTransport` paces each transfer on its own, so
/// six parallel transfers would get six times the bandwidth; a phone has one radio. For
/// simulators of a scrolling grid, and tests of what a client does on such a link.
///
/// The wrapped transport (URLSession, over loopback in a simulator) runs ahead into this
/// link's buffers; what counts, and what the client sees, is what the link has delivered. So
/// the figures do not depend on the real network's speed, and nothing touches system settings
/// (no tc, no sysctl).
///
/// Deliveries run on one serial queue, a tick every few milliseconds of wall time: each
/// transfer's events stay in order and never run concurrently, as `ThumbdTransport` requires.
/// A tick's byte budget comes from the wall time since the last one, so a late tick delivers
/// more rather than slowing the link down.
public final class SharedLinkTransport: ThumbdTransport, Sendable {
    public struct Settings: Sendable {
        /// Body bytes per simulated second, for all transfers together.
        public var bytesPerSecond: Double
        /// Simulated seconds before each request starts.
        public var latency: Double
        /// Simulated seconds per wall second.
        public var timeScale: Double

        public init(bytesPerSecond: Double, latency: Double = 0, timeScale: Double = 1) {
            self.bytesPerSecond = bytesPerSecond
            self.latency = latency
            self.timeScale = timeScale
        }
    }

    /// The end of every transfer still under way when the link is dropped (`disconnectAll`).
    public struct Disconnected: Error {}

    /// Wall seconds between deliveries.
    private static let tickSeconds = 0.004

    /// The link and every transfer on it, behind one lock.
    private struct State {
        /// Transfers until they end: cancelled, or their last event delivered.
        var transfers: [UInt64: LinkTransfer] = [:]
        var lastID: UInt64 = 0
        var ticking = false
        /// Wall time of the last tick, in nanoseconds of uptime.
        var lastTick: UInt64 = 0
        /// Bytes the link may carry and has not yet.
        var budget = 0.0
        var requestsStarted = 0
        var bytesDelivered = 0

        /// The transfers still crossing the link, oldest first.
        var onLink: [UInt64] {
            transfers.keys.sorted().filter { transfers[$0]?.isOnLink == true }
        }
    }

    public let settings: Settings
    private let inner: any ThumbdTransport
    private let onTransferEnd: @Sendable (LinkTransferReport) -> Void
    private let queue = DispatchQueue(label: "ThumbdKitTesting.SharedLinkTransport", qos: .userInitiated)
    private let state = Locked(State())

    /// `onTransferEnd` is called once per transfer, from any thread, when it completes, fails
    /// or is cancelled.
    public init(wrapping inner: any ThumbdTransport, settings: Settings,
                onTransferEnd: @escaping @Sendable (LinkTransferReport) -> Void = { _ in }) {
        self.inner = inner
        self.settings = settings
        self.onTransferEnd = onTransferEnd
    }

    /// Requests started and body bytes delivered so far.
    public var totals: (requests: Int, bytes: Int) {
        state.withLock { (requests: $0.requestsStarted, bytes: $0.bytesDelivered) }
    }

    /// Body bytes delivered and expected (from `Content-Length`) of the latest transfer of
    /// `url` still under way; nil when none is.
    public func progress(for url: URL) -> (received: Int, expected: Int?)? {
        state.withLock { state in
            state.transfers.values.filter { $0.url == url && $0.isOnLink }.max { $0.id < $1.id }
                .map { (received: $0.delivered, expected: $0.expectedLength) }
        }
    }

    public func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask {
        let url = request.url ?? URL(fileURLWithPath: "/")
        let rangeStart = request.value(forHTTPHeaderField: "Range").flatMap(Self.rangeStart)
        let (id, startTicking) = state.withLock { state -> (UInt64, Bool) in
            state.lastID += 1
            let id = state.lastID
            state.transfers[id] = LinkTransfer(id: id, url: url, rangeStart: rangeStart, priority: priority, events: events)
            state.requestsStarted += 1
            guard !state.ticking else { return (id, false) }
            state.ticking = true
            state.lastTick = DispatchTime.now().uptimeNanoseconds
            state.budget = 0
            return (id, true)
        }
        if startTicking { scheduleTick() }
        let wait = settings.latency / settings.timeScale
        queue.asyncAfter(deadline: .now() + wait) { [self] in begin(id, request) }
        return LinkTask(link: self, id: id)
    }

    /// Ends every transfer under way with `Disconnected` (so no caller waits forever), at the
    /// end of a run.
    public func disconnectAll() {
        let dropped = state.withLock { state -> [(UInt64, (any TransportTask)?)] in
            state.onLink.map { id in
                state.transfers[id]?.hungUp = true
                return (id, state.transfers[id]?.innerTask)
            }
        }
        for (id, task) in dropped {
            task?.cancel()
            queue.async { [self] in deliver(.finished(Disconnected()), to: id) }
        }
    }

    // MARK: - Transfers

    fileprivate func cancel(_ id: UInt64) {
        guard let transfer = state.withLock({ $0.transfers.removeValue(forKey: id) }) else { return }
        transfer.innerTask?.cancel()
        onTransferEnd(transfer.report(completed: false))
    }

    fileprivate func setPriority(_ priority: Float, of id: UInt64) {
        let task = state.withLock { state -> (any TransportTask)? in
            state.transfers[id]?.priority = priority
            return state.transfers[id]?.innerTask
        }
        task?.setPriority(priority)
    }

    /// After the latency: the request really starts.
    private func begin(_ id: UInt64, _ request: URLRequest) {
        let priority = state.withLock { state -> Float? in
            guard let transfer = state.transfers[id], !transfer.hungUp else { return nil }
            return transfer.priority
        }
        guard let priority else { return }
        let task = inner.start(request, priority: priority) { [self] event in receive(event, for: id) }
        let stopNow = state.withLock { state -> Bool in
            guard state.transfers[id]?.hungUp == false else { return true }
            state.transfers[id]?.innerTask = task
            return false
        }
        if stopNow { task.cancel() }
    }

    /// An event from the wrapped transport: queued until the link has carried it.
    private func receive(_ event: TransportEvent, for id: UInt64) {
        state.withLock { state in
            guard let transfer = state.transfers[id], !transfer.hungUp, !transfer.innerFinished else { return }
            state.transfers[id]?.enqueue(event)
        }
    }

    private func scheduleTick() {
        queue.asyncAfter(deadline: .now() + Self.tickSeconds) { [self] in tick() }
    }

    /// Hands out the bytes the link carried since the last tick, equal shares to every transfer
    /// with bytes waiting (what one leaves unused goes to the others), with the heads and ends
    /// that come between. Runs on the queue.
    private func tick() {
        let settings = self.settings
        let (deliveries, keepTicking) = state.withLock { state -> ([(UInt64, TransportEvent)], Bool) in
            let now = DispatchTime.now().uptimeNanoseconds
            state.budget += Double(now - state.lastTick) / 1e9 * settings.timeScale * settings.bytesPerSecond
            state.lastTick = now
            var out: [(UInt64, TransportEvent)] = []
            let active = state.onLink
            for id in active { state.transfers[id]?.takeControlEvents(into: &out) }
            var hungry = active.filter { state.transfers[$0]?.wantsBytes == true }
            let offered = Int(state.budget)
            var available = offered
            while available > 0, !hungry.isEmpty {
                let share = max(1, available / hungry.count)
                for id in hungry where available > 0 {
                    let slice = state.transfers[id]?.takeBytes(upTo: min(share, available)) ?? Data()
                    available -= slice.count
                    state.bytesDelivered += slice.count
                    if !slice.isEmpty { out.append((id, .data(slice))) }
                    // The end that follows its last byte.
                    state.transfers[id]?.takeControlEvents(into: &out)
                }
                hungry = hungry.filter { state.transfers[$0]?.wantsBytes == true }
            }
            // A pipe stores no capacity: what no transfer could use now is lost.
            state.budget = hungry.isEmpty ? 0 : state.budget - Double(offered - available)
            let busy = !state.onLink.isEmpty
            if !busy { state.ticking = false }
            return (out, busy)
        }
        for (id, event) in deliveries { deliver(event, to: id) }
        if keepTicking { scheduleTick() }
    }

    /// One event to the client, unless it cancelled; its end also sends the report, and the
    /// link forgets the transfer.
    private func deliver(_ event: TransportEvent, to id: UInt64) {
        let delivery = state.withLock { state -> (events: @Sendable (TransportEvent) -> Void, report: LinkTransferReport?)? in
            guard let transfer = state.transfers[id] else { return nil }
            guard case .finished(let error) = event else { return (transfer.events, nil) }
            state.transfers[id] = nil
            return (transfer.events, transfer.report(completed: error == nil))
        }
        guard let delivery else { return }
        delivery.events(event)
        if let report = delivery.report { onTransferEnd(report) }
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
    let id: UInt64

    func cancel() {
        link.cancel(id)
    }

    func setPriority(_ priority: Float) {
        link.setPriority(priority, of: id)
    }
}
