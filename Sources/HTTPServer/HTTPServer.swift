import Clocks
import CSystem
import FileSystem
import Foundation
import HTTP
import Synchronization

public enum SocketError: Error, CustomStringConvertible {
    case system(String, Int32)
    case address(String)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .address(let detail): detail
        }
    }
}

/// What every loop shares: configuration, the handler, the clock, the live counts.
package final class ServerCore: Sendable {
    package let configuration: ServerConfiguration
    package let handler: any HTTPHandler
    package let observer: (any HTTPObserver)?
    package let gauges: ServerGauges
    package let clock: any MonotonicClock

    package init(configuration: ServerConfiguration, handler: any HTTPHandler, observer: (any HTTPObserver)?,
         gauges: ServerGauges, clock: any MonotonicClock) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.gauges = gauges
        self.clock = clock
    }

    package func reserveConnection() -> Bool {
        let after = gauges.connections.add(1, ordering: .relaxed).newValue
        if after > configuration.maxConnections {
            gauges.connections.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    package func releaseConnection() {
        gauges.connections.subtract(1, ordering: .relaxed)
    }
}

/// An HTTP/1.1 server: `eventLoops` epoll threads, each accepting on its own SO_REUSEPORT
/// socket bound to the same address.
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration
    /// The port actually bound (useful when the configuration asked for 0).
    public let port: Int
    private let core: ServerCore
    private let loops: [EventLoop]
    private let finished = DispatchGroup()

    /// `gauges` receives the live counts; `clock` is what every timeout is measured with.
    public init(configuration: ServerConfiguration, handler: any HTTPHandler, observer: (any HTTPObserver)? = nil,
                gauges: ServerGauges = ServerGauges(), clock: any MonotonicClock = SystemClock()) throws {
        // A write to a closed socket must be an error, not a signal that kills the process
        // (sendfile cannot take MSG_NOSIGNAL).
        signal(SIGPIPE, SIG_IGN)
        self.configuration = configuration
        core = ServerCore(configuration: configuration, handler: handler, observer: observer, gauges: gauges, clock: clock)
        let address = try SocketAddress.resolve(host: configuration.host, port: configuration.port)
        var boundPort = configuration.port
        if boundPort != 0 {
            // SO_REUSEPORT would silently share the port with another running server:
            // bind once without it first so "address in use" is reported.
            try Listener.probeFree(address)
        }
        var loops: [EventLoop] = []
        for _ in 0..<configuration.eventLoops {
            let loop = try EventLoop(server: core)
            let listener = try Listener.open(address.with(port: boundPort), backlog: configuration.listenBacklog)
            if boundPort == 0 { boundPort = Listener.boundPort(listener.raw) }
            loop.adoptListener(listener)
            loops.append(loop)
        }
        self.loops = loops
        self.port = boundPort
        for (index, loop) in loops.enumerated() {
            finished.enter()
            let thread = Thread { [finished] in
                loop.run()
                finished.leave()
            }
            thread.name = "thumbd-loop-\(index)"
            thread.start()
        }
    }

    public var gauges: ServerGauges { core.gauges }
    public var openConnections: Int { core.gauges.openConnections }
    public var inFlightRequests: Int { core.gauges.inFlightRequests }

    /// Stops accepting at once and lets open exchanges finish, for up to `seconds`.
    public func drain(seconds: Double) {
        let deadline = core.clock.now() + seconds
        for loop in loops { loop.beginDrain(deadline: deadline) }
    }

    /// Closes everything now.
    public func stop() {
        for loop in loops { loop.stop() }
        finished.wait()
    }

    /// Blocks until every loop has exited (after `drain` or `stop`).
    public func wait() {
        finished.wait()
    }
}

/// A resolved socket address.
package struct SocketAddress {
    package var storage: sockaddr_storage
    package var length: socklen_t

    package var family: Int32 { Int32(storage.ss_family) }

    package static func resolve(host: String, port: Int) throws -> SocketAddress {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let rc = getaddrinfo(bare.isEmpty ? nil : bare, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            throw SocketError.address("cannot resolve listen address \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var address = SocketAddress(storage: sockaddr_storage(), length: info.pointee.ai_addrlen)
        withUnsafeMutableBytes(of: &address.storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        }
        return address
    }

    package func with(port: Int) -> SocketAddress {
        var copy = self
        withUnsafeMutableBytes(of: &copy.storage) { raw in
            if family == AF_INET6 {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
            } else {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port = in_port_t(UInt16(port).bigEndian)
            }
        }
        return copy
    }

    package init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }
}

package enum Listener {
    package static func open(_ address: SocketAddress, backlog: Int32, reusePort: Bool = true) throws -> FileDescriptor {
        guard let socket = FileDescriptor(adopting: Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                                                                                  | Int32(SOCK_CLOEXEC.rawValue), 0))
        else { throw SocketError.system("socket", errno) }
        let fd = socket.raw
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var storage = address.storage
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, address.length) }
        }
        guard rc == 0 else { throw SocketError.system("bind", errno) }
        guard listen(fd, backlog) == 0 else { throw SocketError.system("listen", errno) }
        return socket
    }

    package static func probeFree(_ address: SocketAddress) throws {
        try open(address, backlog: 1, reusePort: false).close()
    }

    package static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: &storage) { raw in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }
}
