import Foundation
import Testing
import Thumbd
import ThumbdCore
import ThumbdKit
import ThumbdKitTesting

/// One transfer for many callers, stopped only when the last of them cancels.
@Suite(.serialized) struct CoalescingTests {
    static let photo: [UInt8] = try! TestImages.photo(width: 1200, height: 800, seed: 1)
    static let noise: [UInt8] = try! TestImages.noise(width: 640, height: 480, seed: 11)

    @Test func fiftyConcurrentLoadsOfOneURLMakeOneRequest() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        let url = server.builder.imageURL("p.jpg", options: .init(width: 640, format: .webp))
        let before = try server.requests(status: 200)
        let responses = try await withThrowingTaskGroup(of: ImageResponse<TestImage>.self) { group in
            for _ in 0..<50 { group.addTask { try await loader.load(url) } }
            var all: [ImageResponse<TestImage>] = []
            for try await response in group { all.append(response) }
            return all
        }
        #expect(responses.count == 50)
        #expect(Set(responses.map(\.image)).count == 1)
        #expect(try server.requests(status: 200) - before == 1)
        let counters = loader.counters
        #expect(counters.requestsSent == 1)
        // Every load but the first joined the transfer, or came after it into the memory tier.
        #expect(counters.coalesced + counters.memoryHits == 49)
        #expect(counters.coalesced > 0)
    }

    @Test func cancellingOneOfTwoJoinedLoadsKeepsTheTransferAndCancellingBothStopsIt() async throws {
        let server = try ThumbdServer(files: ["n.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let first = server.builder.imageURL("n.jpg", options: .init(width: 640, format: .png))
        let second = server.builder.imageURL("n.jpg", options: .init(width: 639, format: .png))
        // Made once on the server first, so the transfers below are about bytes, not transforms.
        let full = try server.get(server.builder.target(forImage: "n.jpg", options: .init(width: 640, format: .png))).body
        _ = try server.get(server.builder.target(forImage: "n.jpg", options: .init(width: 639, format: .png)))
        #expect(full.count > 300_000)
        let throttle = ThrottledTransport(wrapping: URLSessionTransport(), settings: .init(bytesPerSecond: full.count / 2))
        let recorder = RecordingTransport(wrapping: throttle)
        let loader = ThumbdLoader(transport: recorder, decode: TestImage.decode)
        let before = try server.requests(status: 200)

        let a = Task { try await loader.load(first) }
        let b = Task { try await loader.load(first) }
        let joined = await until { loader.counters.coalesced == 1 && loader.counters.bytesReceived > 0 }
        #expect(joined)
        a.cancel()
        let aResult = await a.result
        #expect(endedInCancellation(aResult))
        let kept = try await b.value
        #expect(kept.outcome == .network && kept.image.bytes == Data(full))
        #expect(recorder.cancels == 0 && loader.counters.transfersCancelled == 0)
        #expect(try server.requests(status: 200) - before == 1)

        let received = loader.counters.bytesReceived
        let c = Task { try await loader.load(second) }
        let d = Task { try await loader.load(second) }
        let bothJoined = await until { loader.counters.coalesced == 2 && loader.counters.bytesReceived > received }
        #expect(bothJoined)
        c.cancel()
        d.cancel()
        let cResult = await c.result
        #expect(endedInCancellation(cResult))
        let dResult = await d.result
        #expect(endedInCancellation(dResult))
        #expect(recorder.cancels == 1)
        #expect(loader.counters.transfersCancelled == 1 && loader.counters.loadsInFlight == 0)
        // What arrived before the stop is kept for a resume.
        let partial = try #require(loader.partialDownloadSize(for: second))
        #expect(partial > 0 && partial < full.count)
    }

    @Test func aCancelledLoadThatWasAloneStopsItsTransferAtOnce() async throws {
        let server = try ThumbdServer(files: ["n.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let url = server.builder.imageURL("n.jpg", options: .init(width: 500, format: .png))
        let full = try server.get(server.builder.target(forImage: "n.jpg", options: .init(width: 500, format: .png))).body
        let recorder = RecordingTransport(wrapping: ThrottledTransport(settings: .init(bytesPerSecond: full.count / 4)))
        let loader = ThumbdLoader(transport: recorder, decode: TestImage.decode)
        let task = Task { try await loader.load(url) }
        let started = await until { loader.counters.bytesReceived > 0 }
        #expect(started)
        task.cancel()
        let taskResult = await task.result
        #expect(endedInCancellation(taskResult))
        #expect(recorder.cancels == 1 && loader.counters.loadsInFlight == 0)
    }
}
