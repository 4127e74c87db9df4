import Foundation
import HTTP
import HTTPServer
import Logging
import Testing
@testable import Thumbd
@testable import ThumbdCore

/// The log sink behind standard error: access lines wait in the buffer, other lines go out
/// at once, after whatever was buffered before them.
@Suite struct LogSinkTests {
    /// A pipe the sink writes to, read without blocking. Each test leaves its sink empty:
    /// a sink's flush thread lives on after the test.
    final class Pipe {
        let read: Int32
        let write: Int32

        init() {
            var fds: [Int32] = [0, 0]
            pipe(&fds)
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            read = fds[0]
            write = fds[1]
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
            _ = fcntl(write, 1031 /* F_SETPIPE_SZ */, 1 << 20)  // room for a full buffer and more
        }

        deinit {
            close(read)
            close(write)
        }

        func drain() -> String {
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = Glibc.read(read, &chunk, chunk.count)
                if n <= 0 { break }
                out += chunk[0..<n]
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    @Test func bufferedLinesWaitAndUrgentLinesFlushInOrder() {
        let pipe = Pipe()
        let sink = LogSink(fd: pipe.write)
        var access = Logger(label: "thumbd.access") { SinkLogHandler(label: $0, sink: sink, buffered: true) }
        access.logLevel = .info
        let main = Logger(label: "thumbd") { SinkLogHandler(label: $0, sink: sink, buffered: false) }

        access.info("GET /img/a.jpg 200 10 0.01ms memory")
        access.info("GET /img/b.jpg 200 20 0.02ms disk")
        #expect(pipe.drain() == "")  // still in the buffer

        main.info("listening", metadata: ["port": "8080", "loops": "2"])
        let lines = pipe.drain().split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasSuffix(" info thumbd.access: GET /img/a.jpg 200 10 0.01ms memory"))
        #expect(lines[1].hasSuffix(" info thumbd.access: GET /img/b.jpg 200 20 0.02ms disk"))
        #expect(lines[2].hasSuffix(" info thumbd: loops=2 port=8080 listening"))
        #expect(lines[0].range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "#, options: .regularExpression) != nil)

        // Warnings from a buffered logger are not held back either.
        access.warning("slow")
        #expect(pipe.drain().hasSuffix(" warning thumbd.access: slow\n"))
    }

    @Test func aFullBufferIsWrittenWithoutWaitingForTheFlushThread() {
        let pipe = Pipe()
        let sink = LogSink(fd: pipe.write)
        let line = String(repeating: "x", count: 1000)
        for _ in 0..<(LogSink.flushBytes / 1000 + 1) { sink.write(level: "info", label: "a", metadata: nil, message: line, buffered: true) }
        #expect(pipe.drain().utf8.count >= LogSink.flushBytes)
        // Nothing left for this sink's flush thread to write after the pipe is closed (and
        // its descriptor number reused by another test).
        sink.flush()
    }

    @Test func theFlushThreadWritesWithinItsInterval() async throws {
        let pipe = Pipe()
        let sink = LogSink(fd: pipe.write)
        sink.write(level: "info", label: "a", metadata: nil, message: "later", buffered: true)
        var seen = ""
        for _ in 0..<100 where seen.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            seen = pipe.drain()
        }
        #expect(seen.hasSuffix("info a: later\n"))
    }

    @Test func accessLinesNameClientRequestOutcomeAndTier() {
        let pipe = Pipe()
        let sink = LogSink(fd: pipe.write)
        let log = ExchangeLog(metrics: ThumbdMetrics(routes: Route.metricLabels), accessLog: AccessLog(sink: sink))
        log.exchangeCompleted(CompletedExchange(client: "127.0.0.1", method: "GET", target: "/img/a.jpg?w=30", tag: Route.image.rawValue, status: 200,
                                                bodyBytes: 1234, duration: 0.0015, annotation: "memory"))
        log.exchangeCompleted(CompletedExchange(client: "", method: "-", target: "-", status: 400, bodyBytes: 80,
                                                duration: 0))
        log.exchangeCompleted(CompletedExchange(client: "::1", method: "HEAD", target: "/img/b.png?w=64", tag: Route.image.rawValue,
                                                status: 304, bodyBytes: 0, duration: 12.3456, annotation: "disk"))
        log.exchangeCompleted(CompletedExchange(client: "10.0.0.7", method: "GET", target: "/health", tag: Route.health.rawValue,
                                                status: 200, bodyBytes: 3, duration: 0.00009))
        sink.flush()
        let lines = pipe.drain().split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasSuffix(" info thumbd.access: 127.0.0.1 GET /img/a.jpg?w=30 200 1234 1.50ms memory img"))
        #expect(lines[1].hasSuffix(" info thumbd.access: - - - 400 80 0.00ms - invalid"))
        #expect(lines[2].hasSuffix(" info thumbd.access: ::1 HEAD /img/b.png?w=64 304 0 12345.60ms disk img"))
        #expect(lines[3].hasSuffix(" info thumbd.access: 10.0.0.7 GET /health 200 3 0.09ms - health"))
        #expect(lines.allSatisfy { $0.first?.isNumber == true })  // each starts with its time stamp
    }

    @Test func utcTimestamps() {
        #expect(LogSink.formatUTC(0) == "1970-01-01T00:00:00Z")
        #expect(LogSink.formatUTC(1_795_000_000) == "2026-11-18T11:06:40Z")
    }
}
