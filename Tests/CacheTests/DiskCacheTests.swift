import Clocks
@testable import Cache
import Foundation
import PropertyBased
import Testing

func temporaryDirectory() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-cache-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func variant(_ n: Int, size: Int = 1000) -> CachedVariant {
    CachedVariant(bytes: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }, contentType: "image/webp",
                  etag: "t\(n)", lastModified: 1_700_000_000 + n)
}

@Suite struct CacheEntryCodecTests {
    let key = CacheKey("img|cat.jpg|o1-2|w=100")

    @Test func roundTrips() throws {
        let v = variant(1)
        #expect(try CacheEntryCodec.decode(CacheEntryCodec.encode(key: key, variant: v), expecting: key).get() == v)
        let empty = CachedVariant(bytes: [], contentType: "", etag: "", lastModified: -5)
        #expect(try CacheEntryCodec.decode(CacheEntryCodec.encode(key: key, variant: empty), expecting: key).get() == empty)
    }

    @Test func anotherKeyIsNotServed() {
        let data = CacheEntryCodec.encode(key: key, variant: variant(1))
        #expect(CacheEntryCodec.decode(data, expecting: CacheKey("img|dog.jpg")) == .failure(.otherKey))
    }

    static let damage = Generator<(Int, UInt8, Bool), Shrink.None<(Int, UInt8, Bool)>> { rng in
        (Int.random(in: 0..<10_000, using: &rng), UInt8.random(in: 1...255, using: &rng), Bool.random(using: &rng))
    }

    /// Any flipped byte and any truncation is detected: a torn or rotten entry never decodes.
    @Test func damageIsAlwaysDetected() async {
        let data = CacheEntryCodec.encode(key: key, variant: variant(3, size: 700))
        await propertyCheck(count: 1500, input: Self.damage) { position, flip, truncate in
            var broken = data
            if truncate {
                broken = Array(data.prefix(position % data.count))
            } else {
                broken[position % data.count] ^= flip
            }
            guard case .failure = CacheEntryCodec.decode(broken, expecting: key) else {
                Issue.record("damage at \(position) (truncate: \(truncate)) was not detected")
                return
            }
        }
    }
}

@Suite struct MemoryCacheTests {
    @Test func countsHitsMissesAndEvictions() {
        let cache = MemoryCache<CachedVariant>(capacityBytes: 3000)
        let a = CacheKey("a"), b = CacheKey("b"), c = CacheKey("c")
        cache.put(a, variant(1))
        cache.put(b, variant(2))
        #expect(cache.get(a) == variant(1))
        cache.put(c, variant(3))  // evicts b, the least recently used
        #expect(cache.get(b) == nil)
        let stats = cache.statistics
        #expect(stats.hits == 1 && stats.misses == 1 && stats.evictions == 1 && stats.entries == 2)
        #expect(stats.bytes <= 3000)
    }

    @Test func aZeroSizedTierStoresNothing() {
        let cache = MemoryCache<CachedVariant>(capacityBytes: 0)
        cache.put(CacheKey("a"), variant(1))
        #expect(cache.get(CacheKey("a")) == nil)
    }
}

@Suite struct DiskCacheTests {
    @Test func storesAndSurvivesARestart() {
        let dir = temporaryDirectory()
        let key = CacheKey("img|a.jpg|v1|w=10")
        let first = DiskCache(directory: dir, capacityBytes: 1 << 20)
        first.rebuildIndex()
        #expect(first.get(key) == nil)
        first.put(key, variant(7))
        #expect(first.get(key) == variant(7))
        let second = DiskCache(directory: dir, capacityBytes: 1 << 20)
        // Served even before the index is rebuilt...
        #expect(second.get(key) == variant(7))
        second.rebuildIndex()
        // ...and after.
        #expect(second.get(key) == variant(7))
        #expect(second.statistics.entries == 1)
        #expect(FileManager.default.fileExists(atPath: second.path(for: key.hash).path))
    }

    @Test func aPurgeBeforeTheIndexIsBuiltReachesWhatAnEarlierRunLeft() {
        let dir = temporaryDirectory()
        let first = DiskCache(directory: dir, capacityBytes: 1 << 20)
        first.rebuildIndex()
        let a = CacheKey("img|a.jpg|v1|w=10"), a2 = CacheKey("img|a.jpg|v1|w=20"), b = CacheKey("img|b.jpg|v1|w=10")
        for key in [a, a2, b] { first.put(key, variant(3)) }
        let second = DiskCache(directory: dir, capacityBytes: 1 << 20)
        #expect(!second.isIndexed)
        #expect(second.removeAll(whereKey: { $0.hasPrefix("img|a.jpg|") }) == 2)
        #expect(second.get(a) == nil && second.get(a2) == nil)
        #expect(second.get(b) == variant(3))
    }

    @Test func evictsLeastRecentlyUsedToStayUnderItsBound() throws {
        let dir = temporaryDirectory()
        let cache = DiskCache(directory: dir, capacityBytes: 5000)
        cache.rebuildIndex()
        let keys = (0..<8).map { CacheKey("k\($0)") }
        for (i, key) in keys.enumerated() {
            cache.put(key, variant(i))
            if i >= 1 { _ = cache.get(keys[0]) }  // keep k0 recently used
        }
        let stats = cache.statistics
        #expect(stats.bytes <= 5000)
        #expect(stats.evictions > 0)
        #expect(cache.get(keys[0]) == variant(0))
        #expect(cache.get(keys[1]) == nil)
        #expect(!FileManager.default.fileExists(atPath: cache.path(for: keys[1].hash).path))
        // The bound also holds for what a restart finds on disk.
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir).filter { $0.split(separator: "/").count == 2 && !$0.hasPrefix("tmp") }
        #expect(files.count == stats.entries)
    }

    @Test func aCorruptEntryIsDroppedAndCounted() throws {
        let dir = temporaryDirectory()
        let messages = MessageLog()
        let cache = DiskCache(directory: dir, capacityBytes: 1 << 20) { messages.add($0) }
        cache.rebuildIndex()
        let key = CacheKey("img|x")
        cache.put(key, variant(1))
        let file = cache.path(for: key.hash)
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 10] ^= 0xFF
        try bytes.write(to: file)
        #expect(cache.get(key) == nil)
        #expect(cache.statistics.corrupt == 1)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(messages.all.contains { $0.contains("corrupt") })
    }

    @Test func anEntryAlteredAfterItWasOpenedIsCheckedAgain() throws {
        let dir = temporaryDirectory()
        let cache = DiskCache(directory: dir, capacityBytes: 1 << 20)
        cache.rebuildIndex()
        let key = CacheKey("img|y")
        cache.put(key, variant(2))
        #expect(cache.lookup(key)?.variant == variant(2))      // read, checked, kept open
        #expect(cache.lookup(key)?.variant == nil)              // unchanged: served from the open file
        let handle = try FileHandle(forUpdating: cache.path(for: key.hash))
        try handle.seek(toOffset: try handle.seekToEnd() - 5)
        try handle.write(contentsOf: Data([0xEE]))              // same size, same inode, new ctime
        try handle.close()
        #expect(cache.lookup(key) == nil)
        #expect(cache.statistics.corrupt == 1)
    }

    @Test func leftoverTemporaryFilesAreCleanedOnStart() throws {
        let dir = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/tmp", withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir + "/tmp/half-written"))
        let cache = DiskCache(directory: dir, capacityBytes: 1 << 20)
        cache.rebuildIndex()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/tmp").isEmpty)
    }

    @Test func anUnwritableFolderTurnsTheTierOff() throws {
        // A regular file where the folder should be: fails even for root.
        let dir = temporaryDirectory()
        try Data([0]).write(to: URL(fileURLWithPath: dir + "/blocker"))
        let messages = MessageLog()
        let cache = DiskCache(directory: dir + "/blocker/cache", capacityBytes: 1 << 20) { messages.add($0) }
        cache.put(CacheKey("a"), variant(1))
        #expect(!cache.isHealthy)
        #expect(cache.get(CacheKey("a")) == nil)
        #expect(messages.all.count == 1 && messages.all[0].contains("memory only"))
    }

    /// The fault clears (the blocking file goes away): after the probe interval the tier
    /// tries the folder again, comes back on with a log line, and stores entries again.
    @Test func theTierComesBackWhenTheFolderIsWritableAgain() throws {
        let dir = temporaryDirectory()
        try Data([0]).write(to: URL(fileURLWithPath: dir + "/blocker"))
        let messages = MessageLog()
        let clock = ManualClock(100)
        let cache = DiskCache(directory: dir + "/blocker/cache", capacityBytes: 1 << 20, probeInterval: 30,
                              clock: clock, report: { messages.add($0) })
        cache.put(CacheKey("a"), variant(1))
        #expect(!cache.isHealthy)
        try FileManager.default.removeItem(atPath: dir + "/blocker")
        try FileManager.default.createDirectory(atPath: dir + "/blocker", withIntermediateDirectories: true)
        clock.advance(by: 29)
        cache.put(CacheKey("b"), variant(2))
        #expect(!cache.isHealthy, "not tried again before the interval")
        clock.advance(by: 1)
        cache.put(CacheKey("c"), variant(3))
        #expect(cache.isHealthy)
        #expect(cache.get(CacheKey("c")) == variant(3))
        #expect(messages.all.count == 2 && messages.all[1].contains("back on"))
    }

    @Test func aFolderThatStopsAcceptingWritesTurnsTheTierOff() throws {
        let dir = temporaryDirectory()
        let cache = DiskCache(directory: dir, capacityBytes: 1 << 20)
        cache.put(CacheKey("a"), variant(1))
        #expect(cache.isHealthy)
        try FileManager.default.removeItem(atPath: dir + "/tmp")
        try Data([0]).write(to: URL(fileURLWithPath: dir + "/tmp"))
        cache.put(CacheKey("b"), variant(2))
        #expect(!cache.isHealthy)
    }
}

final class MessageLog: @unchecked Sendable {
    private var messages: [String] = []
    private let lock = NSLock()
    func add(_ m: String) { lock.withLock { messages.append(m) } }
    var all: [String] { lock.withLock { messages } }
}

@Suite struct EntryMemoTests {
    final class Made: Sendable {}

    @Test func makesItsValueOnce() {
        let memo = EntryMemo()
        var runs = 0
        let first = memo.value { runs += 1; return Made() }
        let second = memo.value { runs += 1; return Made() }
        #expect(first === second && runs == 1)
        final class Other: Sendable {}
        let other = memo.value { Other() }  // another type replaces the value, does not crash
        #expect(memo.value { Other() } === other)
    }

    @Test func hitsOnOneOpenEntryShareAMemoAndARewrittenEntryGetsANewOne() {
        let dir = temporaryDirectory()
        let cache = DiskCache(directory: dir, capacityBytes: 1 << 20)
        cache.rebuildIndex()
        let key = CacheKey("img|memo.jpg|v1|w=10")
        cache.put(key, variant(1))
        let a = cache.lookup(key), b = cache.lookup(key)
        let made = a?.memo.value { Made() }
        #expect(made != nil && b?.memo.value { Made() } === made)
        cache.put(key, variant(2))
        let c = cache.lookup(key)
        #expect(c?.variant == variant(2))
        #expect(c?.memo.value { Made() } !== made)
    }
}

@Suite struct DiskEntryWalkTests {
    @Test func findsOnlyRegularEntryFilesInTheirShards() throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        let hash = String(repeating: "ab", count: 16), other = String(repeating: "cd", count: 16)
        try fm.createDirectory(atPath: root + "/ab/ab", withIntermediateDirectories: true)
        let placed = String(repeating: "a0", count: 16)
        try Data(count: 55).write(to: URL(fileURLWithPath: root + "/ab/" + placed))
        try fm.createDirectory(atPath: root + "/cd/cd/" + String(repeating: "e", count: 32), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
        try Data(count: 123).write(to: URL(fileURLWithPath: root + "/ab/ab/" + hash))
        try Data(count: 7).write(to: URL(fileURLWithPath: root + "/cd/cd/" + other))
        try Data(count: 9).write(to: URL(fileURLWithPath: root + "/tmp/" + hash + ".partial"))
        try Data(count: 9).write(to: URL(fileURLWithPath: root + "/ab/ab/short"))
        try fm.createSymbolicLink(atPath: root + "/ab/ab/" + String(repeating: "f", count: 32), withDestinationPath: root + "/ab/ab/" + hash)
        let found = DiskCache.entryFiles(in: root).sorted { $0.hash < $1.hash }
        // In their shard, and in the two-level layout of earlier builds.
        #expect(found.map(\.hash) == [placed, hash, other])
        #expect(found.map(\.size) == [55, 123, 7])
        #expect(found.map(\.path) == [root + "/ab/" + placed, root + "/ab/ab/" + hash, root + "/cd/cd/" + other])
        #expect(found.allSatisfy { abs($0.modified - Date().timeIntervalSince1970) < 60 })
        #expect(DiskCache.entryFiles(in: root + "/missing").isEmpty)
    }

    /// Entries an earlier build wrote as `ab/cd/<hash>` are moved to `ab/<hash>` when the
    /// index is rebuilt, and served from there; the emptied folders go.
    @Test func theTwoLevelLayoutsEntriesAreMovedIntoTheirShard() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = CacheKey("img|old.jpg|v1|w=10")
        let writer = DiskCache(directory: dir, capacityBytes: 1 << 20)
        writer.put(key, variant(3))
        let placed = writer.path(for: key.hash).path
        #expect(placed == dir + "/" + key.hash.prefix(2) + "/" + key.hash)
        let legacyFolder = dir + "/" + key.hash.prefix(2) + "/" + key.hash.dropFirst(2).prefix(2)
        try FileManager.default.createDirectory(atPath: legacyFolder, withIntermediateDirectories: true)
        #expect(rename(placed, legacyFolder + "/" + key.hash) == 0)
        let restarted = DiskCache(directory: dir, capacityBytes: 1 << 20)
        restarted.rebuildIndex()
        #expect(restarted.get(key) == variant(3))
        #expect(FileManager.default.fileExists(atPath: placed))
        #expect(!FileManager.default.fileExists(atPath: legacyFolder))
        #expect(restarted.statistics.entries == 1)
    }
}
