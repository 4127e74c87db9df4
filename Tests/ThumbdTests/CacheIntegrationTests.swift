import Cache
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct CacheIntegrationTests {
    static let photo: [UInt8] = try! ImageSynthesis.pattern(width: 1200, height: 800, seed: 1).encode(.jpeg, quality: 90)
    static let otherPhoto: [UInt8] = try! ImageSynthesis.pattern(width: 1200, height: 800, seed: 9).encode(.jpeg, quality: 90)

    func get(_ port: Int, _ target: String, headers: [String] = []) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: port, timeout: 60).request("GET", target, headers: headers)
    }

    /// Entry files in a disk cache folder (not the tmp folder).
    func entryFiles(_ dir: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.split(separator: "/").count == 2 && !$0.hasPrefix("tmp") }
            .map { dir + "/" + $0 }
    }

    @Test func theSecondRequestIsAMemoryHitWithTheSameBytesAndETag() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let first = try get(f.port, "/img/p.jpg?w=200&fm=webp")
        let second = try get(f.port, "/img/p.jpg?fm=webp&w=200")
        #expect(first.header("X-Cache") == "miss" && second.header("X-Cache") == "memory")
        #expect(first.body == second.body && first.header("ETag") == second.header("ETag"))
        #expect(second.header("Server-Timing")?.hasPrefix("cache;desc=memory") == true)
        #expect(f.service.app.thumbnails.transformsRun.count == 1)
    }

    @Test func afterARestartTheDiskTierServesTheSameBytesAndResumes() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let first = try get(f.port, "/img/p.jpg?w=300&h=300&fit=cover")
        let etag = try #require(first.header("ETag"))
        var config = f.service.config
        config.server.port = 0
        let restarted = try ThumbdService(config: config)
        defer { restarted.stop() }
        let again = try get(restarted.port, "/img/p.jpg?w=300&h=300&fit=cover")
        #expect(again.header("X-Cache") == "disk")
        #expect(again.header("ETag") == etag && again.body == first.body)
        #expect(restarted.app.thumbnails.transformsRun.count == 0)
        // A client that had half of it resumes against the restarted server.
        let half = first.body.count / 2
        let rest = try get(restarted.port, "/img/p.jpg?w=300&h=300&fit=cover", headers: ["Range: bytes=\(half)-", "If-Range: \(etag)"])
        #expect(rest.status == 206)
        #expect(Array(first.body[..<half]) + rest.body == first.body)
        #expect(try get(restarted.port, "/img/p.jpg?w=300&h=300&fit=cover").header("X-Cache") == "memory")
    }

    @Test func aChangedSourceGivesANewETagAndNewPixels() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let before = try get(f.port, "/img/p.jpg?w=100")
        try f.write("p.jpg", Self.otherPhoto)
        let after = try get(f.port, "/img/p.jpg?w=100")
        #expect(after.header("X-Cache") == "miss")
        #expect(after.header("ETag") != before.header("ETag"))
        #expect(after.body != before.body)
    }

    @Test func fiftyConcurrentIdenticalMissesRunOneTransform() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let port = f.port
        let bodies = concurrently(50) { _ in (try? RawHTTPClient(port: port, timeout: 60).request("GET", "/img/p.jpg?w=640&fm=avif").body) ?? [] }
        #expect(f.service.app.thumbnails.transformsRun.count == 1)
        #expect(Set(bodies).count == 1 && !bodies[0].isEmpty)
        print("coalescing: 50 requests, 1 transform, \(f.service.app.thumbnails.flights.joined.count) joined the transform in flight")
    }

    @Test func aWaiterThatLeavesDoesNotCancelTheWorkForTheOthers() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo]) { $0.limits.workers = 1 }
        let target = "/img/p.jpg?w=2400&enlarge=1&fm=avif"
        let leaving = try RawHTTPClient(port: f.port)
        try leaving.send(RawHTTPClient.requestText("GET", target))
        while f.service.app.thumbnails.flights.pendingKeys == 0 { Thread.sleep(forTimeInterval: 0.002) }
        let staying = try RawHTTPClient(port: f.port, timeout: 120)
        try staying.send(RawHTTPClient.requestText("GET", target))
        while f.service.app.thumbnails.flights.joined.count == 0 { Thread.sleep(forTimeInterval: 0.002) }
        leaving.hangUp()
        let response = try staying.readResponse()
        #expect(response.status == 200 && ImageFormat.sniff(response.body) == .avif)
        #expect(f.service.app.thumbnails.transformsRun.count == 1)
        #expect(leaving.waitForClose())
    }

    @Test func aCorruptedDiskEntryIsDetectedAndRegenerated() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo]) { $0.cache.memoryBytes = 0 }
        let dir = f.service.config.cache.dir
        let good = try get(f.port, "/img/p.jpg?w=150")
        #expect(try get(f.port, "/img/p.jpg?w=150").header("X-Cache") == "disk")
        let files = entryFiles(dir)
        #expect(files.count == 1)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: files[0]))
        bytes[bytes.count / 2] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: files[0]))
        let regenerated = try get(f.port, "/img/p.jpg?w=150")
        #expect(regenerated.header("X-Cache") == "miss")
        #expect(regenerated.body == good.body)
        #expect(f.service.app.thumbnails.store.disk?.statistics.corrupt == 1)
        let fromDisk = try get(f.port, "/img/p.jpg?w=150")
        #expect(fromDisk.header("X-Cache") == "disk" && fromDisk.body == good.body)
    }

    @Test func anUnusableCacheFolderStillServes() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-blocker-\(UUID().uuidString)")
        try Data([1]).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        // A regular file where the folder's parent should be: unwritable, even for root.
        let f = try LibraryFixture(files: ["p.jpg": Self.photo]) { $0.cache.dir = blocker.path + "/cache" }
        let first = try get(f.port, "/img/p.jpg?w=120")
        let second = try get(f.port, "/img/p.jpg?w=120")
        #expect(first.status == 200 && second.status == 200)
        #expect(second.header("X-Cache") == "memory")
        #expect(f.service.app.thumbnails.store.disk?.isHealthy == false)
        #expect(try get(f.port, "/health").status == 200)
    }

    @Test func autoFormatIsCachedPerNegotiatedFormat() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let avif = try get(f.port, "/img/p.jpg?w=90&fm=auto", headers: ["Accept: image/avif,image/webp"])
        let webp = try get(f.port, "/img/p.jpg?w=90&fm=auto", headers: ["Accept: image/webp"])
        let legacy = try get(f.port, "/img/p.jpg?w=90&fm=auto", headers: ["Accept: */*"])
        let avifAgain = try get(f.port, "/img/p.jpg?w=90&fm=auto", headers: ["Accept: image/avif"])
        #expect(avif.header("Content-Type") == "image/avif" && webp.header("Content-Type") == "image/webp")
        #expect(legacy.header("Content-Type") == "image/jpeg")
        #expect(avifAgain.header("X-Cache") == "memory" && avifAgain.body == avif.body)
        #expect(Set([avif.header("ETag"), webp.header("ETag"), legacy.header("ETag")]).count == 3)
    }
}
