import Foundation
import HTTP
@testable import HTTPServer
import Testing
import TestSupport

/// Bodies sent while they arrive (`BodyStream`): whole and in order at any pace, the connection
/// closed when the producer fails, and the producer stopped when nobody reads.
@Suite struct StreamedBodyTests {
    private let expected = (0..<TestHandler.streamedLength).map(TestHandler.streamedByte)

    private func outcomes(_ handler: TestHandler, count: Int) async throws -> [String] {
        for _ in 0..<500 where handler.streams.all.count < count { try await Task.sleep(for: .milliseconds(20)) }
        return handler.streams.all
    }

    @Test func aStreamedBodyArrivesWholeAndThePipelinedRequestFollows() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { port in
            let client = try RawHTTPClient(port: port, timeout: 30)
            try client.send(RawHTTPClient.requestText("GET", "/streamed") + RawHTTPClient.requestText("GET", "/hello?next"))
            let streamed = try client.readResponse()
            #expect(streamed.status == 200 && streamed.header("Content-Length") == String(TestHandler.streamedLength))
            #expect(streamed.body == expected)
            #expect(try client.readResponse().text == "hello next")
            #expect(try await outcomes(handler, count: 1) == ["finished"])
        }
    }

    /// A client that reads nothing holds the producer back (the connection buffers at most what
    /// the sockets and the stream hold, of 16 MiB); once it reads, every byte comes.
    @Test func aStalledReaderHoldsTheProducerBackThenGetsEveryByte() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { port in
            let client = try RawHTTPClient(port: port, timeout: 30)
            client.shrinkReceiveBuffer(to: 64 << 10)
            try client.send(RawHTTPClient.requestText("GET", "/streamed"))
            let head = try client.readHead()
            #expect(head.status == 200)
            #expect(eventually { handler.streams.last?.isProducerWaiting == true }, "the producer waits for room")
            #expect(handler.streams.all.isEmpty, "and has not finished")
            var body: [UInt8] = []
            while body.count < TestHandler.streamedLength {
                body += try client.readBody(count: min(100_000, TestHandler.streamedLength - body.count))
            }
            #expect(body == expected)
        }
    }

    /// The length was promised in the head: a producer that fails leaves the client a short body
    /// and a closed connection, never a hang or a next response read as body.
    @Test func aFailedProducerClosesTheConnectionAfterWhatCame() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { port in
            let client = try RawHTTPClient(port: port, timeout: 30)
            try client.send(RawHTTPClient.requestText("GET", "/streamed?fail"))
            let head = try client.readHead()
            #expect(head.status == 200 && head.header("Content-Length") == String(TestHandler.streamedLength))
            let rest = try client.readToEnd()
            #expect(rest.count == TestHandler.streamedLength / 2 && rest == Array(expected.prefix(rest.count)))
            #expect(try await outcomes(handler, count: 1) == ["failed"])
        }
    }

    @Test(arguments: ["leaves", "HEAD"])
    func nobodyReadingStopsTheProducer(_ client: String) async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { port in
            if client == "HEAD" {
                let connection = try RawHTTPClient(port: port, timeout: 30)
                let head = try connection.request("HEAD", "/streamed")
                #expect(head.status == 200 && head.body.isEmpty)
                // The connection goes on with the next request.
                #expect(try connection.request("GET", "/hello?after").text == "hello after")
            } else {
                let connection = try RawHTTPClient(port: port, timeout: 30)
                connection.shrinkReceiveBuffer()
                try connection.send(RawHTTPClient.requestText("GET", "/streamed"))
                #expect(try connection.readHead().status == 200)
            }  // closed here, with bytes unread
            #expect(try await outcomes(handler, count: 1) == ["stopped"])
        }
    }
}
