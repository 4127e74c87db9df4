import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import ThumbdKit

/// Wraps a transport to behave like a slower network, as the loader sees it: a latency before
/// each request starts, a bandwidth limit on how fast body bytes are delivered, and optional
/// random jitter before the response head and the completion. For simulators (a scrolling
/// grid on a phone link) and tests (cancel a transfer mid-way, deliver results out of order).
///
/// The limit paces delivery, not the socket: the wrapped transport may receive ahead into its
/// buffers. Settings can be changed while transfers run; a new bandwidth applies to the next
/// chunk.
public final class ThrottledTransport: ThumbdTransport, Sendable {
    public struct Settings: Sendable, Equatable {
        /// Seconds before each request is started.
        public var latency: TimeInterval
        /// Body bytes delivered per second; nil: as fast as they come.
        public var bytesPerSecond: Int?
        /// Up to this many seconds, at random, added before the head and before the completion.
        public var jitter: TimeInterval

        public init(latency: TimeInterval = 0, bytesPerSecond: Int? = nil, jitter: TimeInterval = 0) {
            self.latency = latency
            self.bytesPerSecond = bytesPerSecond
            self.jitter = jitter
        }
    }

    private let inner: any ThumbdTransport
    private let current: Locked<Settings>
    /// One serial queue for all deliveries: each transfer's events stay in order.
    private let queue = DispatchQueue(label: "ThumbdKitTesting.ThrottledTransport")

    public init(wrapping inner: any ThumbdTransport = URLSessionTransport(), settings: Settings = Settings()) {
        self.inner = inner
        current = Locked(settings)
    }

    public var settings: Settings {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    public func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask {
        let transfer = PacedTransfer(queue: queue, settings: current, priority: priority, events: events)
        let latency = settings.latency
        let inner = self.inner
        if latency > 0 {
            queue.asyncAfter(deadline: .now() + latency) { transfer.begin(inner, request) }
        } else {
            transfer.begin(inner, request)
        }
        return transfer
    }
}
