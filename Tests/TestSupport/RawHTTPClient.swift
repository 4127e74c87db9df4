import Foundation

/// A deliberately simple blocking HTTP/1.1 client on a raw socket, so tests control every
/// byte sent (malformed requests, pipelining, slow clients) and see every byte received.
public final class RawHTTPClient {
    public let fd: Int32

    public struct Response: CustomStringConvertible {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        public func headerCount(_ name: String) -> Int {
            headers.filter { $0.name.lowercased() == name.lowercased() }.count
        }

        public var text: String { String(decoding: body, as: UTF8.self) }

        public var description: String { "\(status) \(headers.map { "\($0.name): \($0.value)" }) \(body.count) bytes" }
    }

    public struct ClientError: Error, CustomStringConvertible {
        public var description: String
    }

    private var buffer: [UInt8] = []

    public init(port: Int, host: String = "127.0.0.1", timeout: Double = 10) throws {
        // The socket becomes `fd` only once connected: a class whose stored properties are all
        // set runs its deinit when its init throws, and closing here and there again closed
        // whatever socket another test thread had got that number meanwhile (EBADF elsewhere).
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw ClientError(description: "socket failed") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            close(socketFD)
            throw ClientError(description: "connect failed: \(code)")
        }
        fd = socketFD
    }

    deinit { close(fd) }

    /// Hangs up now (both directions), as a client that goes away would.
    public func hangUp() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Half-closes: no more requests will be sent (FIN), answers are still read, as
    /// `nc -N`, socat and some health checkers do.
    public func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Sets the receive buffer small, so a large response fills the socket and the server
    /// has to wait for this client to read.
    public func shrinkReceiveBuffer(to bytes: Int32 = 4096) {
        var size = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError(description: "send failed: \(errno)") }
            offset += n
        }
    }

    /// Sends a GET (or other method) with Host and any extra header lines.
    public func request(_ method: String = "GET", _ target: String, headers: [String] = []) throws -> Response {
        try send(Self.requestText(method, target, headers: headers))
        return try readResponse(method: method)
    }

    public static func requestText(_ method: String = "GET", _ target: String, headers: [String] = []) -> String {
        "\(method) \(target) HTTP/1.1\r\nHost: test\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    /// Reads one response. `method` matters only for HEAD (no body follows).
    public func readResponse(method: String = "GET") throws -> Response {
        var response = try readHead()
        if method == "HEAD" || response.status == 304 || response.status == 204 { return response }
        if let lengthText = response.header("Content-Length"), let length = Int(lengthText) {
            response.body = try readBody(count: length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// The next `count` bytes of a body.
    public func readBody(count: Int) throws -> [UInt8] {
        _ = try fill(until: { $0.count >= count ? count : nil })
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// Reads a response's status and fields only: its body is left to read.
    public func readHead() throws -> Response {
        let headEnd = try fill(until: { buf in Self.find([13, 10, 13, 10], in: buf) })
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError(description: "bad status line \(head)") }
        let headers = lines.map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Response(status: status, headers: headers, body: [])
    }

    /// Everything until the server closes.
    public func readToEnd() throws -> [UInt8] {
        while try readSome() > 0 {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// True when the server has closed the connection (EOF or reset) within the receive timeout.
    public func waitForClose() -> Bool {
        while true {
            do {
                if try readSome() == 0 { return true }
            } catch {
                return errno == ECONNRESET
            }
        }
    }

    /// Non-blocking: bytes the server has sent so far without waiting.
    public func pendingBytes() -> Int {
        var scratch = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n > 0 ? n + buffer.count : buffer.count
    }

    @discardableResult
    private func readSome() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 { throw ClientError(description: "recv failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[0..<n])
        return n
    }

    private func fill(until done: ([UInt8]) -> Int?) throws -> Int {
        while true {
            if let result = done(buffer) { return result }
            if try readSome() == 0 { throw ClientError(description: "connection closed after \(buffer.count) bytes") }
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}
