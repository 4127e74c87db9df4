import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Thumbd
import ThumbdCore
@testable import ThumbdKit
import ThumbdKitTesting
import ThumbdProtocol

/// A multi-megabyte thumbnail stopped a third of the way resumes with `Range` + `If-Range`,
/// and the server sends only the rest; a changed source restarts cleanly.
@Suite(.serialized) struct ResumeTests {
    static let noise: [UInt8] = try! TestImages.noise(width: 2000, height: 1200, seed: 21)
    static let changedNoise: [UInt8] = try! TestImages.noise(width: 2000, height: 1200, seed: 22)

    @Test func aStoppedTransferResumesFromItsOffsetAndAChangedSourceStartsOver() async throws {
        let server = try ThumbdServer(files: ["big.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let options = ThumbnailOptions(width: 2000, format: .png)
        let target = server.builder.target(forImage: "big.jpg", options: options)
        let url = server.builder.imageURL("big.jpg", options: options)
        let reference = try server.get(target)
        let etag = try #require(reference.header("ETag"))
        let total = reference.body.count
        #expect(total > 3_000_000)

        // A third arrives after about 2 s and the rest takes 4 s more: room for the polling below
        // on a loaded machine (a stop after the last byte has nothing left to keep).
        let slow = ThrottledTransport.Settings(bytesPerSecond: total / 6)
        let throttle = ThrottledTransport(wrapping: URLSessionTransport(), settings: slow)
        let recorder = RecordingTransport(wrapping: throttle)
        let folder = server.clientFolder()
        let loader = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: recorder, decode: TestImage.decode)

        // Stopped about a third of the way.
        let stopped = Task { try await loader.load(url) }
        let aThirdArrived = await until { loader.counters.bytesReceived >= total / 3 }
        #expect(aThirdArrived)
        stopped.cancel()
        let stoppedResult = await stopped.result
        #expect(endedInCancellation(stoppedResult))
        let kept = try #require(loader.partialDownloadSize(for: url))
        #expect(kept >= total / 3 && kept < total)

        // Resumed: a 206 from the offset, only the rest sent, the whole identical.
        throttle.settings = .init()
        let sentBefore = try server.responseBytes()
        let partialsBefore = try server.requests(status: 206)
        let resumed = try await loader.load(url)
        #expect(resumed.outcome == .resumed)
        #expect(resumed.bytesReceived == total - kept)
        #expect(try server.responseBytes() - sentBefore == total - kept)
        #expect(try server.requests(status: 206) - partialsBefore == 1)
        #expect(resumed.image.bytes == Data(reference.body))
        let rangeRequest = try #require(recorder.requests.last)
        #expect(rangeRequest.value(forHTTPHeaderField: "Range") == "bytes=\(kept)-")
        #expect(rangeRequest.value(forHTTPHeaderField: "If-Range") == etag)
        loader.waitForDiskWrites()
        #expect(loader.partialDownloadSize(for: url) == nil)

        // Stopped again; then the source changes, and a new loader (an app restart) resumes
        // from the bytes kept on disk: If-Range fails, a 200 brings the new image whole.
        loader.removeCachedResponse(for: url)
        throttle.settings = slow
        let received = loader.counters.bytesReceived
        let stoppedAgain = Task { try await loader.load(url) }
        let aThirdArrivedAgain = await until { loader.counters.bytesReceived - received >= total / 3 }
        #expect(aThirdArrivedAgain)
        stoppedAgain.cancel()
        let stoppedAgainResult = await stoppedAgain.result
        #expect(endedInCancellation(stoppedAgainResult))
        loader.waitForDiskWrites()
        let restarted = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: RecordingTransport(wrapping: recorder),
                                     decode: TestImage.decode)
        let keptOnDisk = try #require(restarted.partialDownloadSize(for: url))
        #expect(keptOnDisk > 0 && keptOnDisk < total)

        try server.write("big.jpg", Self.changedNoise)
        throttle.settings = .init()
        let okBefore = try server.requests(status: 200)
        let partialsBeforeChange = try server.requests(status: 206)
        let fresh = try await restarted.load(url)
        let newReference = try server.get(target)
        #expect(newReference.header("ETag") != etag)
        #expect(fresh.outcome == .network)
        #expect(fresh.bytesReceived == newReference.body.count)
        #expect(fresh.image.bytes == Data(newReference.body))
        #expect(fresh.image.bytes != Data(reference.body))
        #expect(try server.requests(status: 206) == partialsBeforeChange)
        #expect(try server.requests(status: 200) - okBefore == 2)  // the load's, and the reference's
        let refused = try #require(recorder.requests.last)
        #expect(refused.value(forHTTPHeaderField: "Range") == "bytes=\(keptOnDisk)-")
        restarted.waitForDiskWrites()
        #expect(restarted.partialDownloadSize(for: url) == nil)
    }

    @Test func aResumeTheServerCannotContinueStartsOverWithTheWholeBody() async throws {
        let server = try ThumbdServer(files: ["big.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let options = ThumbnailOptions(width: 300, format: .png)
        let url = server.builder.imageURL("big.jpg", options: options)
        let reference = try server.get(server.builder.target(forImage: "big.jpg", options: options))
        let etag = try #require(reference.header("ETag"))
        let body = Data(reference.body)
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        let key = loader.cacheKey(for: url)

        // Kept bytes that claim another complete length: the 206 does not continue them.
        loader.partials.keep(PartialDownload(key: key, info: .init(etag: etag, lastModified: nil, completeLength: body.count + 10),
                                             data: body.prefix(1000)))
        let first = try await loader.load(url)
        #expect(first.outcome == .network && first.image.bytes == body)
        #expect(loader.counters.restarts == 1)
        #expect(try server.requests(status: 206) == 1)

        // Kept bytes past the end: 416, then the whole body.
        loader.removeCachedResponse(for: url)
        loader.partials.keep(PartialDownload(key: key, info: .init(etag: etag, lastModified: nil, completeLength: body.count + 100),
                                             data: body + Data(count: 50)))
        let second = try await loader.load(url)
        #expect(second.outcome == .network && second.image.bytes == body)
        #expect(loader.counters.restarts == 2)
        #expect(try server.requests(status: 416) == 1)
    }
}
