import Cache
import Foundation
import Testing

/// Start-up with a full disk tier: how long the index takes to rebuild, and that lookups
/// are answered meanwhile. `THUMBD_INDEX_ENTRIES` sets the count (`make bench` uses 100,000).
@Suite struct DiskIndexScaleTests {
    @Test func rebuildsTheIndexWhileServing() throws {
        let count = Int(ProcessInfo.processInfo.environment["THUMBD_INDEX_ENTRIES"] ?? "") ?? 2000
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = DiskCache(directory: dir, capacityBytes: 1 << 40)
        writer.rebuildIndex()
        let payload = CachedVariant(bytes: Array(repeating: 7, count: 300), contentType: "image/jpeg", etag: "t", lastModified: 0)
        for i in 0..<count { writer.put(CacheKey("entry-\(i)"), payload) }

        let restarted = DiskCache(directory: dir, capacityBytes: 1 << 40)
        let start = Date()
        restarted.startIndexing()
        // Served while the index is still being built.
        #expect(restarted.get(CacheKey("entry-\(count - 1)")) == payload)
        while !restarted.isIndexed { Thread.sleep(forTimeInterval: 0.001) }
        let seconds = Date().timeIntervalSince(start)
        #expect(restarted.statistics.entries == count)
        print("disk index: \(count) entries rebuilt in \(String(format: "%.2f", seconds)) s (served during the rebuild)")
    }
}
