import Clocks
import Foundation
import HTTP
@testable import HTTPServer
import Testing
import TestSupport

/// Connections against the real server: the defects found by probing it from outside, each
/// with the exchange that showed it.
@Suite struct ConnectionTests {
    /// A request pipelined behind a response too large for the socket buffers was never
    /// answered (and the connection never timed out): the output finished while nothing
    /// looked at the input that had arrived meanwhile.
    @Test func aRequestPipelinedAfterASixteenMegabyteResponseIsAnswered() async throws {
        try await withServer { port in
            let client = try RawHTTPClient(port: port, timeout: 60)
            try client.send(RawHTTPClient.requestText("GET", "/huge") + RawHTTPClient.requestText("GET", "/hello?after"))
            settle(milliseconds: 200)  // the server fills the socket and waits for the client to read
            let huge = try client.readResponse()
            #expect(huge.status == 200 && huge.body.count == TestHandler.huge.count)
            #expect(huge.body == TestHandler.huge)
            let next = try client.readResponse()
            #expect(next.status == 200 && next.text == "hello after")
        }
    }

    /// Byte segments are sent many to a sendmsg (`Connection.gatherLimit`): a body of more
    /// segments than one call takes, then a stream, arrives whole and in order.
    @Test func manySegmentsArriveInOrderAcrossGatheredSends() async throws {
        #expect(TestHandler.segments.count > 2 * Connection.gatherLimit)
        try await withServer { port in
            let client = try RawHTTPClient(port: port, timeout: 30)
            let response = try client.request("GET", "/segments")
            #expect(response.status == 200)
            #expect(response.body == TestHandler.segments.flatMap { $0 } + [7, 8, 9])
        }
    }

    /// A client that half-closes after its request (nc -N, socat, some health checkers) is
    /// answered, even when the answer comes later from another thread, then closed.
    @Test func aHalfClosedClientIsAnsweredThenClosed() async throws {
        let observer = RecordingObserver()
        let server = try HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1),
                                    handler: TestHandler(), observer: observer)
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        try client.send(RawHTTPClient.requestText("GET", "/later"))
        client.finishSending()
        let response = try client.readResponse()
        #expect(response.status == 200 && response.text == "later")
        #expect(client.waitForClose())
        #expect(observer.seen.withLock { $0.map(\.status) } == [200])
    }

    @Test func everyRequestSentBeforeAHalfCloseIsAnswered() async throws {
        try await withServer { port in
            let client = try RawHTTPClient(port: port)
            try client.send(RawHTTPClient.requestText("GET", "/later") + RawHTTPClient.requestText("GET", "/hello?2")
                            + RawHTTPClient.requestText("HEAD", "/hello?3"))
            client.finishSending()
            #expect(try client.readResponse().text == "later")
            #expect(try client.readResponse().text == "hello 2")
            #expect(try client.readResponse(method: "HEAD").status == 200)
            #expect(client.waitForClose())
        }
    }

    /// A full close (the socket gone, not half-closed) still cancels the work under way:
    /// the early status bytes draw a reset from the peer's kernel.
    @Test func aClientThatClosesItsSocketCancelsItsWork() async throws {
        let handler = TestHandler()
        let gauges = ServerGauges()
        try await withServer(handler: handler, gauges: gauges) { port in
            do {
                let client = try RawHTTPClient(port: port)
                try client.send(RawHTTPClient.requestText("GET", "/park"))
                eventually { handler.parked.first != nil }
            }  // closed here
            let responder = try #require(handler.parked.first)
            eventually { responder.isCancelled }
            #expect(responder.isCancelled)
            eventually { gauges.openConnections == 0 }
            #expect(gauges.openConnections == 0)
        }
    }

    /// A peer that goes away while a response is still being written: the connection is
    /// closed and its descriptor released, whether it reset or just stopped reading.
    @Test func aPeerThatLeavesWithOutputPendingIsClosed() async throws {
        let clock = ManualClock()
        let gauges = ServerGauges()
        try await withServer({ $0.idleTimeout = 30 }, clock: clock, gauges: gauges) { port in
            do {
                let resetting = try RawHTTPClient(port: port)
                resetting.shrinkReceiveBuffer()
                try resetting.send(RawHTTPClient.requestText("GET", "/huge"))
                settle(milliseconds: 100)
            }  // closed with unread data: a reset
            eventually { gauges.openConnections == 0 }
            #expect(gauges.openConnections == 0)

            let stalled = try RawHTTPClient(port: port)
            stalled.shrinkReceiveBuffer()
            try stalled.send(RawHTTPClient.requestText("GET", "/huge") + RawHTTPClient.requestText("GET", "/hello"))
            stalled.finishSending()  // half-closed, and never reads
            settle(milliseconds: 100)
            #expect(gauges.openConnections == 1)
            clock.advance(by: 31)
            eventually { gauges.openConnections == 0 }
            #expect(gauges.openConnections == 0)
            withExtendedLifetime(stalled) {}
        }
    }

    @Test func aHandlerThatNeverAnswersGets503AtTheResponseTimeout() async throws {
        let clock = ManualClock()
        let handler = TestHandler()
        try await withServer({ $0.responseTimeout = 60 }, handler: handler, clock: clock) { port in
            let client = try RawHTTPClient(port: port)
            try client.send(RawHTTPClient.requestText("GET", "/park"))
            eventually { handler.parked.first != nil }
            clock.advance(by: 60)
            let response = try client.readResponse()
            #expect(response.status == 503)
            #expect(response.header("Retry-After") == "1")
            #expect(response.header("Connection") == "close")
            #expect(client.waitForClose())
            #expect(handler.parked.first?.isCancelled == true)
        }
    }
}
