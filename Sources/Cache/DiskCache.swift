import Clocks
import FileSystem
import Foundation
import Locking
import Synchronization

/// A disk-tier hit: the verified body as a region of an open file (for sendfile), with
/// what is needed to serve it.
public struct DiskHit: Sendable {
    public let file: OpenFile
    public let bodyOffset: Int64
    public let bodyLength: Int64
    public let contentType: String
    public let etag: String
    public let lastModified: Int
    /// The whole variant when this lookup read (and checked) the file, so the caller can
    /// promote it to memory; nil when the open entry was unchanged since its check.
    public let variant: CachedVariant?
    /// Shared by every hit on this open entry; a new one when the file is opened again.
    public let memo: EntryMemo
}

/// An entry file held open after a full check, with the version of the inode as checked:
/// an unchanged version means unchanged, already verified bytes.
struct OpenEntry: Sendable {
    let hit: DiskHit
    let version: FileVersion
}

/// Variants as files under a folder, bounded in bytes, least recently used evicted first.
///
/// Layout: `<dir>/ab/<hash>` (256 shards, each folder made once: a second level, as earlier
/// builds had it, made a new folder for nearly every write into a cache of fewer than some
/// hundred thousand entries, about 6 % of a small photo's miss in CPU; their entries are moved
/// into place when the index is rebuilt). An entry is written to
/// `<dir>/tmp/` and renamed into place, so a crash leaves either the old state or the whole
/// new entry, never a torn one; every read checks lengths and CRCs, and a file that fails is
/// deleted and counted, never served. No fsync: a crashed process cannot tear a renamed
/// file, and the checksum catches what a crashed machine might.
///
/// On start the index is rebuilt in the background from the files (oldest modification
/// first); lookups work meanwhile by going to the file directly. When the folder cannot be
/// written (full disk, read-only, permissions) the tier turns itself off with one log line
/// and the server goes on with memory only; every `probeInterval` it tries the folder
/// again, and turns itself back on (with a log line) once a probe file can be written.
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
    private let directoryPath: String
    public let capacityBytes: Int
    /// The tier's bookkeeping under one lock (a hit takes it once): the index of entry files
    /// by hash with their sizes, the entries read and verified in this process and kept open
    /// (bounded: file descriptors are a limited resource) so a repeated hit costs no
    /// file-system call but a stat, and the counters.
    private struct Tables {
        var index: LRUCache<String, Int>
        var open: LRUCache<String, OpenEntry>
        var stats = Statistics()

        /// Indexes an entry file of `size` bytes; returns the hashes evicted to make room, already
        /// dropped from the open entries (their files are for the caller to delete, unlocked).
        mutating func add(_ hash: String, size: Int) -> [String] {
            let evicted = index.put(hash, size, cost: size)
            for hash in evicted { _ = open.remove(hash) }
            return evicted
        }
    }

    private let tables: Locked<Tables>
    private let healthy = Atomic<Bool>(true)
    private let indexed = Atomic<Bool>(false)
    private let report: @Sendable (String) -> Void
    /// When the tier is off: the next time (clock seconds) the folder is tried again.
    private let nextProbe = Locked<Double>(0)
    private let clock: any MonotonicClock
    public let probeInterval: Double

    /// `report` receives the few log-worthy events (tier disabled or back, corrupt entries);
    /// `clock` gives monotonic seconds (injected so tests need not wait for the probe).
    public init(directory: String, capacityBytes: Int, maxOpenEntries: Int = 512, probeInterval: Double = 30,
                clock: any MonotonicClock = SystemClock(),
                report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = URL(fileURLWithPath: directory)
        self.directoryPath = self.directory.path
        self.capacityBytes = capacityBytes
        self.clock = clock
        self.probeInterval = probeInterval
        self.tables = Locked(Tables(index: LRUCache(capacity: capacityBytes), open: LRUCache(capacity: maxOpenEntries)))
        self.report = report
        do {
            try FileManager.default.createDirectory(at: self.directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        } catch {
            disable("cannot create \(directory): \(error.localizedDescription)")
        }
    }

    public var isHealthy: Bool { healthy.load(ordering: .relaxed) }

    /// Whether the tier is on, trying the folder again first when it is off and a probe is due.
    private func usable() -> Bool {
        if healthy.load(ordering: .relaxed) { return true }
        let now = clock.now()
        let due = nextProbe.withLock { next -> Bool in
            guard now >= next else { return false }
            next = now + probeInterval
            return true
        }
        guard due, probe() else { return false }
        if !healthy.exchange(true, ordering: .relaxed) {
            report("disk cache back on: \(directoryPath) accepts writes again")
        }
        return true
    }

    /// Writes, renames and removes a small file the way entries are written.
    private func probe() -> Bool {
        let tmp = directory.appendingPathComponent("tmp")
        let file = tmp.appendingPathComponent("probe-\(UUID().uuidString)")
        let placed = directory.appendingPathComponent("probe")
        do {
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            try Data([1]).write(to: file)
            guard rename(file.path, placed.path) == 0 else {
                try? FileManager.default.removeItem(at: file)
                return false
            }
            try FileManager.default.removeItem(at: placed)
            return true
        } catch {
            return false
        }
    }
    public var isIndexed: Bool { indexed.load(ordering: .acquiring) }
    public var statistics: Statistics {
        tables.withLock {
            var s = $0.stats
            s.bytes = $0.index.totalCost
            s.entries = $0.index.count
            return s
        }
    }

    /// Builds the index from the folder and removes leftover temporary files. Blocking;
    /// `startIndexing` runs it on a background thread.
    public func rebuildIndex() {
        let fm = FileManager.default
        if let leftovers = try? fm.contentsOfDirectory(at: directory.appendingPathComponent("tmp"), includingPropertiesForKeys: nil) {
            for file in leftovers { try? fm.removeItem(at: file) }
        }
        var found = Self.entryFiles(in: directoryPath)
        // The two-level layout's entries, moved into their shard (dropped if that fails).
        var legacyFolders = Set<String>()
        found.removeAll { entry in
            let path = filePath(for: entry.hash)
            guard entry.path != path else { return false }
            legacyFolders.insert(String(entry.path.dropLast(entry.hash.count + 1)))
            if Self.place(entry.path, at: path) { return false }
            unlink(entry.path)
            return true
        }
        for folder in legacyFolders { rmdir(folder) }
        found.sort { $0.modified < $1.modified }
        var evicted: [String] = []
        tables.withLock { t in
            for entry in found where t.index.peek(entry.hash) == nil {
                evicted += t.add(entry.hash, size: entry.size)
            }
        }
        deleteFiles(evicted)
        indexed.store(true, ordering: .releasing)
    }

    public func startIndexing() {
        let thread = Thread { [self] in rebuildIndex() }
        thread.name = "thumbd-disk-index"
        thread.start()
    }

    /// The entry for `key` as bytes.
    public func get(_ key: CacheKey) -> CachedVariant? {
        guard let hit = lookup(key) else { return nil }
        if let variant = hit.variant { return variant }
        guard let bytes = FileReading.readExactly(hit.file.descriptor, count: Int(hit.bodyLength), at: hit.bodyOffset)
        else { return nil }
        return CachedVariant(bytes: bytes, contentType: hit.contentType, etag: hit.etag, lastModified: hit.lastModified)
    }

    /// The entry for `key`. A file is read and checked (lengths and CRCs) when first opened
    /// and whenever its inode changed since; one that fails is deleted, counted, not returned.
    public func lookup(_ key: CacheKey) -> DiskHit? {
        guard usable() else { return nil }
        // Counted as a hit at once when open; taken back below if the file changed.
        let (known, entry) = tables.withLock { t -> (Bool, OpenEntry?) in
            guard t.index.get(key.hash) != nil else { return (false, nil) }
            let entry = t.open.get(key.hash)
            if entry != nil { t.stats.hits += 1 }
            return (true, entry)
        }
        if let entry {
            if FileVersion(descriptor: entry.hit.file.descriptor) == entry.version { return entry.hit }
            tables.withLock {
                $0.stats.hits -= 1
                _ = $0.open.remove(key.hash)  // changed since it was checked: check it again
            }
        }
        guard known || !isIndexed, let (file, data) = Self.openAndRead(filePath(for: key.hash)) else {
            tables.withLock { $0.stats.misses += 1 }
            return nil
        }
        switch CacheEntryCodec.decode(data, expecting: key) {
        case .success(let variant):
            var evicted: [String] = []
            tables.withLock { t in
                t.stats.hits += 1
                if !known { evicted = t.add(key.hash, size: data.count) }
            }
            deleteFiles(evicted)
            let hit = DiskHit(file: file, bodyOffset: Int64(data.count - variant.bytes.count), bodyLength: Int64(variant.bytes.count),
                              contentType: variant.contentType, etag: variant.etag, lastModified: variant.lastModified, variant: nil,
                              memo: EntryMemo())
            if let version = FileVersion(descriptor: file.descriptor) {
                tables.withLock { _ = $0.open.put(key.hash, OpenEntry(hit: hit, version: version), cost: 1) }
            }
            return DiskHit(file: file, bodyOffset: hit.bodyOffset, bodyLength: hit.bodyLength, contentType: hit.contentType,
                           etag: hit.etag, lastModified: hit.lastModified, variant: variant, memo: hit.memo)
        case .failure(.otherKey):
            tables.withLock { $0.stats.misses += 1 }
            return nil
        case .failure(.corrupt(let why)):
            drop(key, why: why)
            return nil
        }
    }

    private func drop(_ key: CacheKey, why: String) {
        remove(key.hash)
        tables.withLock {
            $0.stats.corrupt += 1
            $0.stats.misses += 1
        }
        report("dropped corrupt disk cache entry \(key.hash): \(why)")
    }

    public func put(_ key: CacheKey, _ variant: CachedVariant) {
        guard usable() else { return }
        let header = CacheEntryCodec.header(key: key, variant: variant)
        let size = header.count + variant.bytes.count
        guard size <= capacityBytes else { return }
        let final = filePath(for: key.hash)
        let temporary = directoryPath + "/tmp/" + key.hash + "." + UUID().uuidString
        do {
            try Self.write([header, variant.bytes], to: temporary)
            guard Self.place(temporary, at: final) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            unlink(temporary)
            disable("cannot write to \(directory.path): \(error.localizedDescription)")
            return
        }
        let evicted = tables.withLock { t in
            let evicted = t.add(key.hash, size: size)
            _ = t.open.remove(key.hash)
            t.stats.writes += 1
            t.stats.evictions += evicted.count
            return evicted
        }
        deleteFiles(evicted)
    }

    private func deleteFiles(_ hashes: [String]) {
        for hash in hashes { try? FileManager.default.removeItem(at: path(for: hash)) }
    }

    /// Renames `file` to `path`, making its shard folder first when it is missing (once per
    /// shard); false, with `errno` set, when that fails.
    static func place(_ file: String, at path: String) -> Bool {
        if rename(file, path) == 0 { return true }
        guard errno == ENOENT else { return false }
        let folder = String(path.dropLast(33))
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { return false }
        return rename(file, path) == 0
    }

    /// Every `ab/<32 characters>` regular file under `root`, and every `ab/cd/<32 characters>`
    /// one of the earlier two-level layout, with its path, size and modification time.
    static func entryFiles(in root: String) -> [(hash: String, size: Int, modified: Double, path: String)] {
        var found: [(hash: String, size: Int, modified: Double, path: String)] = []
        DirectoryWalker.walk(root, descend: { name, depth in depth < 2 && name.utf8.count == 2 },
                             include: { name, depth in depth >= 1 && name.utf8.count == 32 }) { entry in
            let hash = String(entry.path.suffix(32))
            found.append((hash, Int(entry.version.size), Double(entry.version.modifiedNanos) / 1e9, root + "/" + entry.path))
        }
        return found
    }

    /// Removes every entry whose full key satisfies `shouldRemove`; returns how many. Reads
    /// each entry's header (the key is inside), so it takes a while on a large tier: run it
    /// off the event loops. Before the index is built the folder itself is walked, so a purge
    /// applied at start reaches the entries an earlier run left. Entries being written
    /// meanwhile are not seen.
    public func removeAll(whereKey shouldRemove: (String) -> Bool) -> Int {
        guard isHealthy else { return 0 }
        let entries = isIndexed ? tables.withLock { $0.index.keys }.map { ($0, filePath(for: $0)) }
            : Self.entryFiles(in: directoryPath).map { ($0.hash, $0.path) }
        var removed = 0
        for (hash, path) in entries {
            guard let file = FileDescriptor(adopting: Glibc.open(path, O_RDONLY | O_CLOEXEC)) else { continue }
            let head = FileReading.read(file.raw, count: 16 * 1024)
            file.close()
            guard let head, !head.isEmpty, let key = CacheEntryCodec.keyText(head), shouldRemove(key) else { continue }
            remove(hash)
            if path != filePath(for: hash) { unlink(path) }
            removed += 1
        }
        return removed
    }

    public func remove(_ hash: String) {
        tables.withLock {
            _ = $0.index.remove(hash)
            _ = $0.open.remove(hash)
        }
        try? FileManager.default.removeItem(at: path(for: hash))
    }

    /// Creates `path` and writes `parts` to it in order, straight from the arrays.
    static func write(_ parts: [[UInt8]], to path: String) throws {
        guard let file = FileDescriptor(adopting: Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
        for part in parts {
            try part.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(file.raw, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
                    }
                    offset += n
                }
            }
        }
    }

    /// Opens the file and reads it whole (entries are small), without Foundation's Data in
    /// between; the descriptor stays open for the caller.
    static func openAndRead(_ path: String) -> (OpenFile, [UInt8])? {
        guard let file = FileDescriptor(adopting: Glibc.open(path, O_RDONLY | O_CLOEXEC)) else { return nil }
        guard let bytes = FileReading.readWhole(file.raw) else { return nil }
        return (OpenFile(file), bytes)
    }

    /// Where the entry for `hash` lives (plain string work: URL building is slow on a hot path).
    public func path(for hash: String) -> URL { URL(fileURLWithPath: filePath(for: hash)) }

    func filePath(for hash: String) -> String {
        let utf8 = hash.utf8
        let a = utf8.index(utf8.startIndex, offsetBy: 2)
        return directoryPath + "/" + String(hash[..<a]) + "/" + hash
    }

    private func disable(_ why: String) {
        nextProbe.withLock { $0 = clock.now() + probeInterval }
        if healthy.exchange(false, ordering: .relaxed) {
            report("disk cache off, serving from memory only (tried again every \(Int(probeInterval)) s): \(why)")
        }
    }
}
