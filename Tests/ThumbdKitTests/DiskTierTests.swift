import Foundation
import Testing
@testable import ThumbdKit
import WireCoding

/// The disk tier on its own: survives a new instance, refuses damaged or torn files, stays
/// within its bytes by evicting the least recently used.
@Suite struct DiskTierTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("thumbdkit-disk-\(UUID().uuidString)")
    }

    func info(_ length: Int) -> CachedResponseInfo {
        CachedResponseInfo(response: TransportResponse(statusCode: 200, headers: ["ETag": "\"e\(length)\"", "Cache-Control": "max-age=60"]),
                           bodyLength: length, receivedAt: Date())
    }

    @Test func entriesSurviveANewInstance() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = Data((0..<5000).map { UInt8($0 % 251) })
        try #require(DiskResponseCache(directory: dir, capacityBytes: 1 << 20)).storeResponse(body, info: info(body.count), for: "k")
        let again = try #require(DiskResponseCache(directory: dir, capacityBytes: 1 << 20))
        let stored = try #require(again.response(for: "k"))
        #expect(stored.body == body && stored.info.etag == "\"e5000\"" && stored.info.lifetime == 60)
        #expect(again.response(for: "other") == nil)
        #expect(again.usage.files == 1)
    }

    @Test func aFlippedByteOrATruncationIsNeverServedAndTheFileGoes() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try #require(DiskResponseCache(directory: dir, capacityBytes: 1 << 20))
        let body = Data(repeating: 7, count: 3000)
        let damages: [(inout Data) -> Void] = [{ $0[$0.count / 2] ^= 1 }, { $0.removeLast(100) }, { $0[3] ^= 0x20 }]
        for (index, damage) in damages.enumerated() {
            let key = "k\(index)"
            cache.storeResponse(body, info: info(body.count), for: key)
            let entries = dir.appendingPathComponent("entries")
            let name = try #require(FileManager.default.contentsOfDirectory(atPath: entries.path).first)
            let file = entries.appendingPathComponent(name)
            var bytes = try Data(contentsOf: file)
            damage(&bytes)
            try bytes.write(to: file)
            #expect(cache.response(for: key) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
        #expect(cache.usage.corruptFilesRemoved == 3)
    }

    @Test func theLeastRecentlyUsedGoFirst() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = Data(repeating: 1, count: 10_000)
        // Room for three entries (each a little over 10,000 bytes with its header), not four.
        let cache = try #require(DiskResponseCache(directory: dir, capacityBytes: 34_000))
        for key in ["a", "b", "c"] { cache.storeResponse(body, info: info(body.count), for: key) }
        #expect(cache.response(for: "a") != nil)  // a used: b is now the oldest
        cache.storeResponse(body, info: info(body.count), for: "d")
        #expect(cache.response(for: "b") == nil)
        #expect(cache.response(for: "a") != nil && cache.response(for: "c") != nil && cache.response(for: "d") != nil)
        #expect(cache.usage.bytes <= 34_000)
    }

    @Test func partialsRoundTrip() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try #require(DiskResponseCache(directory: dir, capacityBytes: 1 << 20))
        let partial = PartialDownload(key: "p", info: .init(etag: "\"x\"", lastModified: nil, completeLength: 100), data: Data(count: 40))
        cache.storePartial(partial)
        #expect(cache.partial(for: "p") == partial)
        cache.removePartial(for: "p")
        #expect(cache.partial(for: "p") == nil)
    }

    @Test func freshnessFollowsMaxAgeAgeAndNoCache() {
        let start = Date()
        let response = TransportResponse(statusCode: 200, headers: ["Cache-Control": "public, max-age=10", "Age": "4", "ETag": "\"a\""])
        let info = CachedResponseInfo(response: response, bodyLength: 1, receivedAt: start)
        #expect(info.isFresh(at: start.addingTimeInterval(5)))
        #expect(!info.isFresh(at: start.addingTimeInterval(6)))
        let refreshed = info.refreshed(by: TransportResponse(statusCode: 304, headers: [:]), at: start.addingTimeInterval(100))
        #expect(refreshed.isFresh(at: start.addingTimeInterval(109)) && !refreshed.isFresh(at: start.addingTimeInterval(110)))
        let noCache = CachedResponseInfo(response: TransportResponse(statusCode: 200, headers: ["Cache-Control": "no-cache, max-age=100"]),
                                         bodyLength: 1, receivedAt: start)
        #expect(!noCache.isFresh(at: start))
        #expect(!CachedResponseInfo.isStorable(TransportResponse(statusCode: 200, headers: ["Cache-Control": "no-store"])))
        #expect(!CachedResponseInfo.isStorable(TransportResponse(statusCode: 200, headers: ["Vary": "Accept, *"])))
        #expect(CachedResponseInfo.isStorable(TransportResponse(statusCode: 200, headers: ["Vary": "Accept"])))
        let expires = CachedResponseInfo(response: TransportResponse(statusCode: 200, headers: [
            "Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 08:50:37 GMT"]), bodyLength: 1, receivedAt: start)
        #expect(expires.lifetime == 60)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(LinkHeader.target(of: "</a?page=2>; rel=\"next\", </a?page=1>; rel=\"first\"", relation: "next") == "/a?page=2")
    }
}
