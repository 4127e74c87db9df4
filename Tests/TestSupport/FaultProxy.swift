import Foundation
import Synchronization

/// An HTTP proxy on 127.0.0.1 in front of another local server (the real radosgw, an origin of
/// the tests), which injects the faults a store or an origin shows: a body that trickles after
/// a prompt head, no answer at all, a definite error (403, 404, 500 with S3's XML), a body cut
/// short, an answer that comes late. Each request goes upstream on a connection of its own (`Connection: close`), so a
/// fault never leaks into the next request; faults are chosen per request by the first rule
/// whose text occurs in its target, and can be changed while it runs (the store heals).
public final class FaultProxy: @unchecked Sendable {
    public enum Fault: Sendable, Equatable {
        /// Passed on as it is.
        case none
        /// The head and the body's first `after` bytes at once, then the rest at `bytesPerSecond`
        /// (a byte at a time).
        case trickle(bytesPerSecond: Int, after: Int = 0)
        /// The request is read and never answered; the connection stays open.
        case blackhole
        /// The request waits `seconds` (or until the proxy stops, or its rules change) before
        /// it goes on: a store that answers late.
        case delay(seconds: Double)
        /// Answered here, never sent upstream: `status` with S3's error XML naming `code`.
        case status(Int, code: String)
        /// The head at once (its Content-Length as upstream sent it), then `bytes` of the body,
        /// then the connection closes.
        case truncate(bytes: Int)
    }

    public struct Rule: Sendable {
        /// A text the request's target contains; empty matches every request.
        public var matching: String
        public var fault: Fault

        public init(_ matching: String, _ fault: Fault) {
            self.matching = matching
            self.fault = fault
        }

        /// `fault` for every request.
        public init(_ fault: Fault) {
            self.init("", fault)
        }
    }

    public let port: Int
    private let fd: Int32
    private let upstreamPort: Int
    private let state = Mutex<(rules: [Rule], targets: [String])>(([], []))
    private let stopped = Atomic<Bool>(false)
    private let open = Mutex<Set<Int32>>([])

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
        guard bound == 0, listen(fd, 128) == 0 else { throw RawHTTPClient.ClientError(description: "the fault proxy cannot listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: actual.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// The faults, first match wins; none: every request passes.
    public var rules: [Rule] {
        get { state.withLock { $0.rules } }
        set { state.withLock { $0.rules = newValue } }
    }

    /// Every request's method and target so far, in order ("GET /bucket/key").
    public var requests: [String] { state.withLock { $0.targets } }

    /// Requests so far whose line contains `text`.
    public func count(_ text: String) -> Int { requests.filter { $0.contains(text) }.count }

    /// Stops listening and closes every connection it holds (blackholed ones included).
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for socket in open.withLock({ Array($0) }) { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Ends every connection held now (trickling or blackholed), as a store that restarts.
    public func dropConnections() {
        for socket in open.withLock({ Array($0) }) { shutdown(socket, Int32(SHUT_RDWR)) }
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
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            open.withLock { _ = $0.insert(client) }
            Thread { [self] in
                serve(client)
                open.withLock { _ = $0.remove(client) }
                close(client)
            }.start()
        }
    }

    /// One client connection: its requests one after another, each with its fault.
    private func serve(_ client: Int32) {
        var pending: [UInt8] = []
        while !stopped.load(ordering: .acquiring) {
            guard let request = Self.readMessage(client, &pending, expectsBody: true) else { return }
            let line = request.startLine
            let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            state.withLock { $0.targets.append(line.split(separator: " ").prefix(2).joined(separator: " ")) }
            var fault = self.fault(for: target)
            if case .delay(let seconds) = fault {
                let until = Date().addingTimeInterval(seconds)
                while Date() < until && !stopped.load(ordering: .acquiring) && self.fault(for: target) == fault { usleep(20_000) }
                fault = .none
            }
            switch fault {
            case .blackhole:
                // Held until the client gives up or the proxy stops.
                var byte: UInt8 = 0
                while recv(client, &byte, 1, 0) > 0 {}
                return
            case .status(let status, let code):
                let isHead = line.hasPrefix("HEAD ")
                let xml = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>\(code)</Message></Error>".utf8)
                let head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: application/xml\r\nContent-Length: \(xml.count)\r\n"
                    + "x-amz-request-id: fault\r\n\r\n"
                guard Self.sendAll(client, Array(head.utf8) + (isHead ? [] : xml)) else { return }
            case .none, .trickle, .truncate, .delay:
                guard let response = forward(request) else { return }
                switch fault {
                case .trickle(let rate, let after):
                    guard Self.sendAll(client, response.head + response.body.prefix(after)) else { return }
                    let pause = useconds_t(max(1, 1_000_000 / max(1, rate)))
                    for byte in response.body.dropFirst(after) {
                        if stopped.load(ordering: .acquiring) { return }
                        guard Self.sendAll(client, [byte]) else { return }
                        usleep(pause)
                    }
                case .truncate(let bytes):
                    _ = Self.sendAll(client, response.head + response.body.prefix(bytes))
                    return
                default:
                    guard Self.sendAll(client, response.head + response.body) else { return }
                }
            }
        }
    }

    /// The fault the rules give a request for `target` now.
    private func fault(for target: String) -> Fault {
        state.withLock { s in s.rules.first { $0.matching.isEmpty || target.contains($0.matching) }?.fault ?? .none }
    }

    /// The request sent upstream on a connection of its own, and the whole answer read back.
    private func forward(_ request: Message) -> Message? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        // The same head with the connection closed after the answer.
        var lines = String(decoding: request.head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        lines.removeAll { $0.lowercased().hasPrefix("connection:") }
        let head = Array((lines.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8)
        guard Self.sendAll(upstream, head + request.body) else { return nil }
        var pending: [UInt8] = []
        return Self.readMessage(upstream, &pending, expectsBody: !request.startLine.hasPrefix("HEAD "), untilClose: true)
    }

    struct Message {
        /// The start line and fields with the blank line after them.
        var head: [UInt8]
        var body: [UInt8]

        var startLine: String {
            String(decoding: head.prefix { $0 != 0x0D }, as: UTF8.self)
        }

        func field(_ name: String) -> String? {
            for line in String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name { return parts[1].trimmingCharacters(in: .whitespaces) }
            }
            return nil
        }
    }

    /// One message from `socket`: its head, then as many body bytes as Content-Length says (or
    /// to the end, `untilClose`, for an answer without one). Nil when the peer closed first.
    private static func readMessage(_ socket: Int32, _ pending: inout [UInt8], expectsBody: Bool, untilClose: Bool = false) -> Message? {
        let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        func more() -> Bool {
            let n = recv(socket, &buffer, buffer.count, 0)
            if n <= 0 { return false }
            pending += buffer[0..<n]
            return true
        }
        var end: Int?
        while end == nil {
            if let found = pending.firstRange(of: separator) {
                end = found.upperBound
            } else if !more() {
                return nil
            }
        }
        var message = Message(head: Array(pending[0..<end!]), body: [])
        pending.removeFirst(end!)
        guard expectsBody else { return message }
        if let length = message.field("content-length").flatMap(Int.init) {
            while pending.count < length, more() {}
            message.body = Array(pending.prefix(length))
            pending.removeFirst(min(length, pending.count))
        } else if untilClose {
            while more() {}
            message.body = pending
            pending = []
        }
        return message
    }

    private static func sendAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
