import Foundation
import Synchronization

/// Variants as files under a folder, bounded in bytes, least recently used evicted first.
///
/// Layout: `<dir>/ab/cd/<hash>` (two levels of 256 shards). An entry is written to
/// `<dir>/tmp/` and renamed into place, so a crash leaves either the old state or the whole
/// new entry, never a torn one; every read checks lengths and CRCs, and a file that fails is
/// deleted and counted, never served. No fsync: a crashed process cannot tear a renamed
/// file, and the checksum catches what a crashed machine might.
///
/// On start the index is rebuilt in the background from the files (oldest modification
/// first); lookups work meanwhile by going to the file directly. When the folder cannot be
/// written (full disk, read-only, permissions) the tier turns itself off with one log line
/// and the server goes on with memory only.
public final class DiskCache: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
        public var writes = 0
        public var evictions = 0
        public var corrupt = 0
        public var bytes = 0
        public var entries = 0
    }

    public let directory: URL
    public let capacityBytes: Int
    private let index: Mutex<LRUCache<String, Int>>
    private let stats = Mutex(Statistics())
    private let healthy = Atomic<Bool>(true)
    private let indexed = Atomic<Bool>(false)
    private let report: @Sendable (String) -> Void

    /// `report` receives the few log-worthy events (tier disabled, corrupt entries).
    public init(directory: String, capacityBytes: Int, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = URL(fileURLWithPath: directory)
        self.capacityBytes = capacityBytes
        self.index = Mutex(LRUCache(capacity: capacityBytes))
        self.report = report
        do {
            try FileManager.default.createDirectory(at: self.directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        } catch {
            disable("cannot create \(directory): \(error.localizedDescription)")
        }
    }

    public var isHealthy: Bool { healthy.load(ordering: .relaxed) }
    public var isIndexed: Bool { indexed.load(ordering: .acquiring) }
    public var statistics: Statistics {
        var s = stats.withLock { $0 }
        index.withLock {
            s.bytes = $0.totalCost
            s.entries = $0.count
        }
        return s
    }

    /// Builds the index from the folder and removes leftover temporary files. Blocking;
    /// `startIndexing` runs it on a background thread.
    public func rebuildIndex() {
        let fm = FileManager.default
        if let leftovers = try? fm.contentsOfDirectory(at: directory.appendingPathComponent("tmp"), includingPropertiesForKeys: nil) {
            for file in leftovers { try? fm.removeItem(at: file) }
        }
        var found: [(hash: String, size: Int, modified: Double)] = []
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        if let walker = fm.enumerator(at: directory, includingPropertiesForKeys: keys) {
            for case let url as URL in walker {
                let name = url.lastPathComponent
                guard name.count == 32, url.deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.count == 2,
                      let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true
                else { continue }
                found.append((name, values.fileSize ?? 0, values.contentModificationDate?.timeIntervalSince1970 ?? 0))
            }
        }
        found.sort { $0.modified < $1.modified }
        var evicted: [String] = []
        index.withLock { lru in
            for entry in found where lru.peek(entry.hash) == nil {
                evicted += lru.put(entry.hash, entry.size, cost: entry.size)
            }
        }
        for hash in evicted { try? fm.removeItem(at: path(for: hash)) }
        indexed.store(true, ordering: .releasing)
    }

    public func startIndexing() {
        let thread = Thread { [self] in rebuildIndex() }
        thread.name = "thumbd-disk-index"
        thread.start()
    }

    public func get(_ key: CacheKey) -> CachedVariant? {
        guard isHealthy else { return nil }
        let known = index.withLock { $0.get(key.hash) != nil }
        guard known || !isIndexed, let data = FileManager.default.contents(atPath: path(for: key.hash).path) else {
            stats.withLock { $0.misses += 1 }
            return nil
        }
        switch CacheEntryCodec.decode(Array(data), expecting: key) {
        case .success(let variant):
            stats.withLock { $0.hits += 1 }
            if !known { index.withLock { _ = $0.put(key.hash, data.count, cost: data.count) } }
            return variant
        case .failure(.otherKey):
            stats.withLock { $0.misses += 1 }
            return nil
        case .failure(.corrupt(let why)):
            remove(key.hash)
            stats.withLock {
                $0.corrupt += 1
                $0.misses += 1
            }
            report("dropped corrupt disk cache entry \(key.hash): \(why)")
            return nil
        }
    }

    public func put(_ key: CacheKey, _ variant: CachedVariant) {
        guard isHealthy else { return }
        let data = CacheEntryCodec.encode(key: key, variant: variant)
        guard data.count <= capacityBytes else { return }
        let final = path(for: key.hash)
        let temporary = directory.appendingPathComponent("tmp").appendingPathComponent("\(key.hash).\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: final.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(data).write(to: temporary)
            if rename(temporary.path, final.path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            disable("cannot write to \(directory.path): \(error.localizedDescription)")
            return
        }
        let evicted = index.withLock { $0.put(key.hash, data.count, cost: data.count) }
        for hash in evicted { try? FileManager.default.removeItem(at: path(for: hash)) }
        stats.withLock {
            $0.writes += 1
            $0.evictions += evicted.count
        }
    }

    public func remove(_ hash: String) {
        index.withLock { _ = $0.remove(hash) }
        try? FileManager.default.removeItem(at: path(for: hash))
    }

    /// Where the entry for `hash` lives.
    public func path(for hash: String) -> URL {
        let chars = Array(hash)
        return directory.appendingPathComponent(String(chars[0..<2])).appendingPathComponent(String(chars[2..<4]))
            .appendingPathComponent(hash)
    }

    private func disable(_ why: String) {
        if healthy.exchange(false, ordering: .relaxed) {
            report("disk cache off, serving from memory only: \(why)")
        }
    }
}
