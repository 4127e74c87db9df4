import Clocks
import HTTP
import Synchronization

/// Answers requests. Called on an event-loop thread: a handler that needs more than a few
/// microseconds (a transform, a fetch) must hand the work elsewhere and call
/// `responder.respond` later, from any thread.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, responder: HTTPResponder)
}

/// The one-shot channel back to the connection a request came from.
public final class HTTPResponder: @unchecked Sendable {
    // Touched only on `loop`'s thread. Strong, not weak (weak references cost a side
    // table per request); the connection drops its responder when the exchange ends or
    // the connection closes, so no cycle outlives an exchange.
    private let connection: Connection
    private let loop: EventLoop
    private let state = Atomic<UInt8>(0)  // 0 waiting, 1 answered, 2 cancelled
    /// What the handler matched the request to (a route's number), set on the event loop
    /// before it answers; observers receive it with the finished exchange. -1: nothing.
    public var tag = -1
    /// What a route adds to every answer it gives, whoever gives it (a cache hit, a worker, an
    /// error path): set before the request is handed on, applied by `respond` to the answer.
    public var finishing: (@Sendable (inout HTTPResponse) -> Void)?

    package init(connection: Connection, loop: EventLoop) {
        self.connection = connection
        self.loop = loop
    }

    /// True once the client went away: queued work for it can be dropped.
    public var isCancelled: Bool { state.load(ordering: .acquiring) == 2 }

    /// Sends the response. Only the first call counts; calls after cancellation are ignored.
    public func respond(_ response: HTTPResponse) {
        guard state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        var finished = response
        finishing?(&finished)
        let response = finished
        if loop.isCurrent {
            connection.responseArrived(response, from: self)
        } else {
            loop.execute { [self] in connection.responseArrived(response, from: self) }
        }
    }

    package func cancel() {
        _ = state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing)
    }
}
