import Clocks
import HTTP
import Synchronization

/// The server's live counts, shared with whoever reports them (the app's /metrics). Made
/// before the server, so the reporter needs no reference to the server itself.
public final class ServerGauges: Sendable {
    package let connections = Atomic<Int>(0)
    /// Requests whose response has not been handed to the socket yet.
    package let requestsInFlight = Atomic<Int>(0)

    public init() {}

    public var openConnections: Int { connections.load(ordering: .relaxed) }
    public var inFlightRequests: Int { requestsInFlight.load(ordering: .relaxed) }
}
