import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ThumbdKit talks HTTP: start a request, receive its head, its body in chunks and its end.
/// `URLSessionTransport` is the default. For simulators and tests, the `ThumbdKitTesting`
/// library wraps any transport in a slower network: `ThrottledTransport` (latency, bandwidth
/// and jitter per transfer) or `SharedLinkTransport` (one link shared by all transfers).
///
/// Streaming chunks (rather than one `Data` at the end) is what lets the loader keep the bytes
/// of a stopped transfer and resume it with a `Range` request: Linux's URLSession has no resume
/// data and no `bytes(for:)`.
public protocol ThumbdTransport: Sendable {
    /// Starts `request`. `events` receives `.response` once, then `.data` chunks, then
    /// `.finished` exactly once, in order and never concurrently. After `cancel()` on the
    /// returned task, no more events are delivered. `priority` is 0...1 (`URLSessionTask.priority`).
    func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask
}

/// A transfer under way.
public protocol TransportTask: Sendable {
    /// Stops the transfer promptly (closes the connection); no further events.
    func cancel()
    /// Changes the transfer's priority, 0...1 (a hint; prefetches run low, visible loads high).
    func setPriority(_ priority: Float)
}

public enum TransportEvent: Sendable {
    case response(TransportResponse)
    case data(Data)
    /// The end: nil when the body arrived whole, else why it did not.
    case finished((any Error)?)
}
