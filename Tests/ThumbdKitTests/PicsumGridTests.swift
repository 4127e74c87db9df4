import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Thumbd
import ThumbdCore
@testable import ThumbdKit
import ThumbdKitTesting

/// A grid app written against Lorem Picsum, pointed at thumbd: the list pages through
/// `/v2/list`, and the cells' `/id/{id}/{w}/{h}` URLs are just URLs to the loader, so its
/// caching, resuming and cancelling work on them as on `/img` URLs.
@Suite(.serialized) struct PicsumGridTests {
    static let noise: [UInt8] = try! TestImages.noise(width: 2000, height: 1200, seed: 31)

    @Test func aGridFromTheListLoadsItsCellsOnceAndThenFromItsTiers() async throws {
        var files: [String: [UInt8]] = [:]
        for i in 0..<5 { files["grid/p\(i).jpg"] = try TestImages.photo(width: 400 + 10 * i, height: 300, seed: i) }
        let server = try ThumbdServer(files: files)
        defer { withExtendedLifetime(server) {} }
        let listing = PicsumListing(baseURL: server.baseURL, pageSize: 2, transport: URLSessionTransport())

        var items: [PicsumImage] = []
        var pages = 0
        var next: URL? = listing.firstPage
        while let url = next {
            let page = try await listing.page(at: url)
            #expect((page.previous != nil) == (pages > 0))
            items += page.items
            next = page.next
            pages += 1
        }
        #expect(pages == 3 && items.count == 5 && Set(items.map(\.id)).count == 5)
        let first = try #require(items.first)
        #expect(first.width == 400 && first.height == 300 && first.author == "")
        #expect(first.downloadURL == server.baseURL.absoluteString + "/id/\(first.id)/400/300")

        let folder = server.clientFolder()
        let loader = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: TestImage.decode)
        let cells = try items.map { try #require($0.url(width: 150, height: 100)) }
        #expect(cells[0].absoluteString == server.baseURL.absoluteString + "/id/\(first.id)/150/100")
        let okBefore = try server.requests(route: "picsum_image", status: 200)
        for cell in cells {
            let loaded = try await loader.load(cell)
            #expect(loaded.outcome == .network && loaded.image.width == 150 && loaded.image.height == 100)
        }
        for cell in cells { #expect(try await loader.load(cell).outcome == .memory) }
        loader.waitForDiskWrites()
        let restarted = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: TestImage.decode)
        for cell in cells { #expect(try await restarted.load(cell).outcome == .disk) }
        #expect(try server.requests(route: "picsum_image", status: 200) - okBefore == cells.count)

        // A seeded cell goes through the redirect to its image, the same image every time.
        let seeded = server.baseURL.appendingPathComponent("seed/cell-7/120/90")
        let viaRedirect = try await loader.load(seeded)
        #expect(viaRedirect.outcome == .network && viaRedirect.image.width == 120 && viaRedirect.image.height == 90)
        #expect(try await loader.load(seeded).outcome == .memory)
    }

    @Test func aStoppedPicsumImageResumesWithRangeAndIfRange() async throws {
        let server = try ThumbdServer(files: ["big.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let id = try #require(try await PicsumListing(baseURL: server.baseURL, transport: URLSessionTransport())
            .page(at: PicsumListing(baseURL: server.baseURL).firstPage).items.first?.id)
        let target = "/id/\(id)/2000/1200"
        let url = server.builder.url(forTarget: target)
        let reference = try server.get(target)
        let etag = try #require(reference.header("ETag"))
        let total = reference.body.count
        #expect(total > 1_000_000)

        let throttle = ThrottledTransport(wrapping: URLSessionTransport(), settings: .init(bytesPerSecond: total / 2))
        let recorder = RecordingTransport(wrapping: throttle)
        let loader = ThumbdLoader(configuration: .init(diskDirectory: server.clientFolder()), transport: recorder, decode: TestImage.decode)
        let stopped = Task { try await loader.load(url) }
        let aThirdArrived = await until { loader.counters.bytesReceived >= total / 3 }
        #expect(aThirdArrived)
        stopped.cancel()
        let stoppedResult = await stopped.result
        #expect(endedInCancellation(stoppedResult))
        let kept = try #require(loader.partialDownloadSize(for: url))
        #expect(kept >= total / 3 && kept < total)

        throttle.settings = .init()
        let partialsBefore = try server.requests(route: "picsum_image", status: 206)
        let resumed = try await loader.load(url)
        #expect(resumed.outcome == .resumed && resumed.bytesReceived == total - kept)
        #expect(resumed.image.bytes == Data(reference.body))
        #expect(try server.requests(route: "picsum_image", status: 206) - partialsBefore == 1)
        let rangeRequest = try #require(recorder.requests.last)
        #expect(rangeRequest.value(forHTTPHeaderField: "Range") == "bytes=\(kept)-")
        #expect(rangeRequest.value(forHTTPHeaderField: "If-Range") == etag)
    }

    @Test func aCancelledPicsumLoadStopsItsTransfer() async throws {
        let server = try ThumbdServer(files: ["big.jpg": Self.noise])
        defer { withExtendedLifetime(server) {} }
        let items = try await PicsumListing(baseURL: server.baseURL, transport: URLSessionTransport())
            .page(at: PicsumListing(baseURL: server.baseURL).firstPage).items
        let url = try #require(items.first?.url(width: 1800, height: 1100))
        let full = try server.get(url.path).body
        let recorder = RecordingTransport(wrapping: ThrottledTransport(settings: .init(bytesPerSecond: full.count / 4)))
        let loader = ThumbdLoader(transport: recorder, decode: TestImage.decode)
        let task = Task { try await loader.load(url) }
        let started = await until { loader.counters.bytesReceived > 0 }
        #expect(started)
        task.cancel()
        let taskResult = await task.result
        #expect(endedInCancellation(taskResult))
        #expect(recorder.cancels == 1 && loader.counters.loadsInFlight == 0)
        #expect(loader.cachedResponse(for: url) == nil)
    }
}
