import Clocks
import Foundation
import Testing
import Thumbd
import ThumbdCore
@testable import ThumbdKit

/// The memory and disk tiers against a real server: hits make no request (counted by the
/// server itself), expiry revalidates with one conditional request, no-store keeps nothing.
@Suite struct CachingTests {
    static let photo: [UInt8] = try! TestImages.photo(width: 800, height: 600, seed: 5)

    @Test func aSecondLoadIsAMemoryHitWithNoRequest() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        let url = server.builder.imageURL("p.jpg", options: .init(width: 200, format: .webp))
        let before = try server.requests(status: 200)
        let first = try await loader.load(url)
        let second = try await loader.load(url)
        #expect(first.outcome == .network && first.bytesReceived == first.image.bytes.count && first.bytesReceived > 0)
        #expect(second.outcome == .memory && second.bytesReceived == 0 && second.image == first.image)
        #expect(try server.requests(status: 200) - before == 1)
        #expect(loader.counters.requestsSent == 1 && loader.counters.memoryHits == 1 && loader.counters.networkLoads == 1)
        #expect(loader.cachedResponse(for: url)?.outcome == .memory)
    }

    @Test func aNewLoaderOnTheSameFolderHitsTheDiskWithNoRequest() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let folder = server.clientFolder()
        let url = server.builder.imageURL("p.jpg", options: .init(width: 240, height: 240, fit: .cover))
        let first = try await ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(),
                                           decode: TestImage.decode).load(url)
        #expect(first.outcome == .network)
        let before = try server.requests(status: 200)
        let restarted = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: TestImage.decode)
        #expect(restarted.diskUsage?.files == 1)
        let again = try await restarted.load(url)
        #expect(again.outcome == .disk && again.image == first.image && again.bytesReceived == 0)
        let third = try await restarted.load(url)
        #expect(third.outcome == .memory)
        #expect(try server.requests(status: 200) == before)
        #expect(restarted.counters.requestsSent == 0)
    }

    @Test func anExpiredEntryIsRevalidatedWithOneConditionalRequest() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo]) { $0.output.cacheControl = "public, max-age=1" }
        defer { withExtendedLifetime(server) {} }
        let clock = ManualClock()
        let recorder = RecordingTransport(wrapping: URLSessionTransport())
        let loader = ThumbdLoader(configuration: .init(diskDirectory: server.clientFolder(), now: { clock.now() }),
                                  transport: recorder, decode: TestImage.decode)
        let url = server.builder.imageURL("p.jpg", options: .init(width: 160))
        let first = try await loader.load(url)
        #expect(first.outcome == .network)
        let etag = try #require(try server.get(server.builder.target(forImage: "p.jpg", options: .init(width: 160))).header("ETag"))
        #expect(try await loader.load(url).outcome == .memory)  // still fresh: no request

        let ok = try server.requests(status: 200)
        let notModified = try server.requests(status: 304)
        clock.advance(by: 5)
        let second = try await loader.load(url)
        #expect(second.outcome == .revalidated && second.bytesReceived == 0 && second.image == first.image)
        #expect(try server.requests(status: 304) - notModified == 1)
        #expect(try server.requests(status: 200) == ok)
        let conditional = try #require(recorder.requests.last)
        #expect(conditional.value(forHTTPHeaderField: "If-None-Match") == etag)
        #expect(conditional.value(forHTTPHeaderField: "If-Modified-Since") != nil)
        // The 304 made it fresh again.
        #expect(try await loader.load(url).outcome == .memory)

        // The same from the disk tier alone: a new loader, the clock moved on.
        clock.advance(by: 5)
        let fromDisk = ThumbdLoader(configuration: .init(memoryCapacity: 0, diskDirectory: loader.configuration.diskDirectory, now: { clock.now() }),
                                    transport: URLSessionTransport(), decode: TestImage.decode)
        let third = try await fromDisk.load(url)
        #expect(third.outcome == .revalidated && third.image == first.image)
        #expect(try server.requests(status: 304) - notModified == 2)
        #expect(try server.requests(status: 200) == ok)
        // The refreshed entry was written back: fresh on disk now.
        #expect(try await fromDisk.load(url).outcome == .disk)
    }

    @Test func noCacheRevalidatesEveryTime() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo]) { $0.output.cacheControl = "no-cache" }
        defer { withExtendedLifetime(server) {} }
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        let url = server.builder.imageURL("p.jpg", options: .init(width: 90))
        #expect(try await loader.load(url).outcome == .network)
        #expect(try await loader.load(url).outcome == .revalidated)
        #expect(try await loader.load(url).outcome == .revalidated)
        #expect(try server.requests(status: 304) == 2)
        #expect(try server.requests(status: 200) == 1)
    }

    @Test func noStoreIsKeptInNeitherTier() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo]) { $0.output.cacheControl = "no-store" }
        defer { withExtendedLifetime(server) {} }
        let folder = server.clientFolder()
        let loader = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: TestImage.decode)
        let url = server.builder.imageURL("p.jpg", options: .init(width: 100))
        let first = try await loader.load(url)
        let second = try await loader.load(url)
        #expect(first.outcome == .network && second.outcome == .network)
        #expect(try server.requests(status: 200) == 2)
        #expect(loader.memoryImage(for: url) == nil && loader.memoryUsage.entries == 0)
        #expect(loader.diskUsage?.files == 0)
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("entries").path)
        #expect(entries.isEmpty)
    }

    @Test func answersThatVaryByAcceptAreKeptPerAccept() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let folder = server.clientFolder()
        let url = server.builder.imageURL("p.jpg", options: .init(width: 120, format: .auto))
        let webp = ThumbdLoader(configuration: .init(diskDirectory: folder, accept: "image/webp,*/*"), transport: URLSessionTransport(),
                                decode: TestImage.decode)
        let legacy = ThumbdLoader(configuration: .init(diskDirectory: folder, accept: "image/jpeg,*/*"), transport: URLSessionTransport(),
                                  decode: TestImage.decode)
        let a = try await webp.load(url)
        let b = try await legacy.load(url)
        #expect(a.outcome == .network && b.outcome == .network)
        #expect(a.image.bytes.starts(with: Array("RIFF".utf8)) && b.image.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(webp.cacheKey(for: url) != legacy.cacheKey(for: url))
        // Both kept side by side (a new loader reads the folder afresh).
        #expect(ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: TestImage.decode)
            .diskUsage?.files == 2)
        #expect(try await webp.load(url).outcome == .memory)
        #expect(try await legacy.load(url).outcome == .memory)
    }

    @Test func aDamagedDiskEntryIsDroppedAndFetchedAgain() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let folder = server.clientFolder()
        let url = server.builder.imageURL("p.jpg", options: .init(width: 130))
        let first = try await ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(),
                                           decode: TestImage.decode).load(url)
        let entries = folder.appendingPathComponent("entries")
        let file = entries.appendingPathComponent(try #require(FileManager.default.contentsOfDirectory(atPath: entries.path).first))
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 10] ^= 0x5A
        try bytes.write(to: file)
        let restarted = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: TestImage.decode)
        let again = try await restarted.load(url)
        #expect(again.outcome == .network && again.image == first.image)
        // Rewritten whole: the next loader hits the disk.
        let third = try await ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(),
                                           decode: TestImage.decode).load(url)
        #expect(third.outcome == .disk)
    }
}
