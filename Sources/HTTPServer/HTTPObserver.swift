/// Told about every finished exchange (the response was handed to the socket), for access
/// logs and metrics. Called on an event-loop thread: keep it cheap.
import Clocks
import HTTP

public protocol HTTPObserver: Sendable {
    func exchangeCompleted(_ exchange: CompletedExchange)
}

/// What an observer learns about one exchange.
public struct CompletedExchange: Sendable {
    /// The client's IP address ("" when the socket has none).
    public var client: String
    public var method: String
    /// The request target; "-" when the request line could not be parsed.
    public var target: String
    /// The responder's tag (the handler's route), -1 when the request never reached it.
    public var tag: Int
    public var status: Int
    /// Content bytes sent (0 for HEAD and 304).
    public var bodyBytes: Int64
    /// From the first byte of the request to the response being queued, in seconds.
    public var duration: Double
    /// The response's `annotation`: how the handler answered (the cache tier), if it said.
    public var annotation: String?

    public init(client: String, method: String, target: String, tag: Int = -1, status: Int, bodyBytes: Int64,
                duration: Double, annotation: String? = nil) {
        self.client = client
        self.method = method
        self.target = target
        self.tag = tag
        self.status = status
        self.bodyBytes = bodyBytes
        self.duration = duration
        self.annotation = annotation
    }
}
