/// What the HTTP core needs to know; the application maps its config file onto this.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    /// 0 picks a free port (tests); read the bound one from `HTTPServer.port`.
    public var port: Int
    /// Event-loop threads, each with its own epoll set and SO_REUSEPORT listener.
    public var eventLoops: Int
    public var maxConnections: Int
    /// Seconds a client has to send a complete request head, counted from its first byte
    /// (or from accept): slow clients are answered 408 and closed.
    public var headerTimeout: Double
    /// Seconds an idle keep-alive connection, or a stalled write, is kept.
    public var idleTimeout: Double
    /// Seconds the handler has to answer a request; then 503 and close.
    public var responseTimeout: Double
    public var limits: RequestParser.Limits
    /// Request content up to this size (on GET, say) is read and thrown away; larger gets 413.
    public var maxDiscardedContentBytes: Int
    public var listenBacklog: Int32
    /// Peers whose `X-Forwarded-For` is believed: the client observers are told of is then
    /// the rightmost untrusted address in it (the balancer's client), not the peer.
    public var trustedProxies: [IPPrefix]

    public init(host: String = Defaults.host, port: Int = Defaults.port, eventLoops: Int = ProcessInfoLite.activeProcessorCount,
                maxConnections: Int = Defaults.maxConnections, headerTimeout: Double = Defaults.headerTimeout,
                idleTimeout: Double = Defaults.idleTimeout, responseTimeout: Double = Defaults.responseTimeout,
                limits: RequestParser.Limits = RequestParser.Limits(), maxDiscardedContentBytes: Int = 64 * 1024,
                listenBacklog: Int32 = 1024, trustedProxies: [IPPrefix] = []) {
        self.host = host
        self.port = port
        self.eventLoops = max(1, eventLoops)
        self.maxConnections = maxConnections
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.responseTimeout = responseTimeout
        self.limits = limits
        self.maxDiscardedContentBytes = maxDiscardedContentBytes
        self.listenBacklog = listenBacklog
        self.trustedProxies = trustedProxies
    }
}

extension ServerConfiguration {
    /// The defaults, defined once: the app's configuration starts from these too.
    public enum Defaults {
        public static let host = "0.0.0.0"
        public static let port = 8080
        public static let maxConnections = 10_000
        public static let headerTimeout = 10.0
        public static let idleTimeout = 75.0
        public static let responseTimeout = 60.0
    }
}

#if canImport(Glibc)
import Glibc
import HTTP
import Clocks
#endif

public enum ProcessInfoLite {
    /// Online processors, without pulling Foundation into the HTTP core's public surface.
    public static var activeProcessorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
