import Foundation
import Testing
import Thumbd
import ThumbdCore
import ThumbdKit
import ThumbdKitTesting
import ThumbdProtocol

/// Prefetching: low priority, bounded, cancellable; a visible load joins a prefetch under way
/// and raises its priority.
@Suite(.serialized) struct PrefetchTests {
    static let photo: [UInt8] = try! TestImages.photo(width: 300, height: 200, seed: 4)
    static let noise: [UInt8] = try! TestImages.noise(width: 500, height: 400, seed: 31)

    @Test func prefetchedImagesAreMemoryHits() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let recorder = RecordingTransport(wrapping: URLSessionTransport())
        let loader = ThumbdLoader(configuration: .init(maxConcurrentPrefetches: 2), transport: recorder, decode: TestImage.decode)
        let urls = (0..<6).map { server.builder.imageURL("p.jpg", options: .init(width: 40 + $0)) }
        loader.prefetch(urls)
        #expect(loader.prefetchCounts.running <= 2)
        let allPrefetched = await until { urls.allSatisfy { loader.memoryImage(for: $0) != nil } }
        #expect(allPrefetched)
        #expect(recorder.priorities.allSatisfy { $0 == LoadPriority.low.transferPriority })
        for url in urls { #expect(try await loader.load(url).outcome == .memory) }
        #expect(try server.requests(status: 200) == 6)
        // Already in memory: nothing queued.
        let prefetchesEnded = await until { loader.prefetchCounts.running == 0 }
        #expect(prefetchesEnded)
        loader.prefetch(urls)
        #expect(loader.prefetchCounts.waiting == 0 && loader.prefetchCounts.running == 0)
    }

    @Test func aVisibleLoadJoinsAPrefetchAndRaisesItsPriority() async throws {
        let server = try ThumbdServer(files: ["n.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let options = ThumbnailOptions(width: 500, format: .png)
        let url = server.builder.imageURL("n.jpg", options: options)
        let full = try server.get(server.builder.target(forImage: "n.jpg", options: options)).body
        let throttle = ThrottledTransport(settings: .init(bytesPerSecond: full.count / 2))
        let recorder = RecordingTransport(wrapping: throttle)
        let loader = ThumbdLoader(transport: recorder, decode: TestImage.decode)
        loader.prefetch([url])
        let prefetchStarted = await until { loader.counters.bytesReceived > 0 }
        #expect(prefetchStarted)
        #expect(recorder.priorities == [LoadPriority.low.transferPriority])
        throttle.settings = .init()
        let visible = try await loader.load(url, priority: .high)
        #expect(visible.outcome == .network && visible.image.bytes == Data(full))
        #expect(recorder.requests.count == 1 && loader.counters.coalesced == 1)
        #expect(recorder.changes.first == LoadPriority.high.transferPriority)
        #expect(try server.requests(status: 200) == 2)  // the reference and the one shared transfer
    }

    @Test func cancellingPrefetchesStopsTheirTransfers() async throws {
        let server = try ThumbdServer(files: ["n.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let options = ThumbnailOptions(width: 480, format: .png)
        let url = server.builder.imageURL("n.jpg", options: options)
        let full = try server.get(server.builder.target(forImage: "n.jpg", options: options)).body
        let recorder = RecordingTransport(wrapping: ThrottledTransport(settings: .init(bytesPerSecond: full.count / 4)))
        let loader = ThumbdLoader(configuration: .init(maxConcurrentPrefetches: 1), transport: recorder, decode: TestImage.decode)
        let waiting = (0..<3).map { server.builder.imageURL("n.jpg", options: .init(width: 100 + $0)) }
        loader.prefetch([url] + waiting)
        let prefetchStarted = await until { loader.counters.bytesReceived > 0 }
        #expect(prefetchStarted)
        #expect(loader.prefetchCounts.running == 1 && loader.prefetchCounts.waiting == 3)
        loader.cancelAllPrefetching()
        #expect(loader.prefetchCounts.running == 0 && loader.prefetchCounts.waiting == 0)
        let transferStopped = await until { recorder.cancels == 1 && loader.counters.loadsInFlight == 0 }
        #expect(transferStopped)
        #expect(recorder.requests.count == 1)
        #expect(loader.partialDownloadSize(for: url) != nil)
    }
}
