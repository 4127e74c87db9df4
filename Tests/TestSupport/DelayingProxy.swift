import Foundation
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of another local server, which can be told to hold what
/// clients send for a while before passing it on: a store (or origin) that stalls, every
/// request answered `delay` seconds late, on new and kept-alive connections alike. Bytes pass
/// through unchanged otherwise.
public final class DelayingProxy: @unchecked Sendable {
    public let port: Int
    private let fd: Int32
    private let upstreamPort: Int
    private let delayMilliseconds = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Seconds each chunk a client sends waits before it goes on.
    public var delay: Double {
        get { Double(delayMilliseconds.load(ordering: .relaxed)) / 1000 }
        set { delayMilliseconds.store(Int(newValue * 1000), ordering: .relaxed) }
    }

    public init(to upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw RawHTTPClient.ClientError(description: "the proxy cannot listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: actual.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .acquiring) {
            let client = accept(fd, nil, nil)
            if client < 0 { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let done = Atomic<Int>(0)
            let finish: @Sendable () -> Void = {
                // The second direction to end closes both sockets.
                if done.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                    close(client)
                    close(upstream)
                } else {
                    shutdown(client, Int32(SHUT_RDWR))
                    shutdown(upstream, Int32(SHUT_RDWR))
                }
            }
            Thread { [self] in
                pump(from: client, to: upstream, delayed: true)
                finish()
            }.start()
            Thread { [self] in
                pump(from: upstream, to: client, delayed: false)
                finish()
            }.start()
        }
    }

    private func pump(from source: Int32, to sink: Int32, delayed: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = recv(source, &buffer, buffer.count, 0)
            if n <= 0 { return }
            let wait = delayMilliseconds.load(ordering: .relaxed)
            if delayed && wait > 0 { usleep(useconds_t(wait * 1000)) }
            var offset = 0
            while offset < n {
                let sent = buffer[offset..<n].withUnsafeBytes { send(sink, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { return }
                offset += sent
            }
        }
    }
}
