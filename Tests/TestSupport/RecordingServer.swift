import Foundation
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that records each request (method, target, fields, body)
/// and answers every one with the next status of `statuses` (the last one repeated), closing
/// the connection: what a CDN's purge API is to the tests, which have none to call.
public final class RecordingServer: @unchecked Sendable {
    public struct Request: Sendable {
        public let method: String
        public let target: String
        /// Lower-cased names.
        public let fields: [String: String]
        public let body: [UInt8]
    }

    let fd: Int32
    public let port: Int
    public let requests = Mutex<[Request]>([])
    private let statuses: Mutex<[Int]>

    public init(statuses: [Int] = [200]) throws {
        self.statuses = Mutex(statuses)
        let (fd, port) = LoopbackSocket.listening()
        self.fd = fd
        self.port = port
        Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                serve(client)
            }
        }.start()
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headEnd: Int?
        var expected = 0
        while true {
            if let end = headEnd, received.count >= end + expected { break }
            let n = recv(client, &buffer, buffer.count, 0)
            if n <= 0 { return }
            received += buffer[0..<n]
            if headEnd == nil, let end = Self.find([13, 10, 13, 10], in: received) {
                headEnd = end + 4
                let head = String(decoding: received[0..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    expected = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        guard let end = headEnd else { return }
        let lines = String(decoding: received[0..<(end - 4)], as: UTF8.self).split(separator: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        requests.withLock {
            $0.append(Request(method: requestLine.first.map(String.init) ?? "", target: requestLine.dropFirst().first.map(String.init) ?? "",
                              fields: fields, body: Array(received[end..<(end + expected)])))
        }
        let status = statuses.withLock { list in list.count > 1 ? list.removeFirst() : (list.first ?? 200) }
        let answer = Array("HTTP/1.1 \(status) Answered\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".utf8)
        _ = send(client, answer, answer.count, Int32(MSG_NOSIGNAL))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle { return start }
        return nil
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
