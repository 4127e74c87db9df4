import Locking
import Cache
import FileSystem
import Foundation
import HTTP
import Imaging
import Synchronization

/// The library's images in a stable order (by path), with their facts (sizes, format,
/// placeholder). Facts are read once per file version and kept until the file changes; the
/// folder itself is walked again at most every `maxAge` seconds.
final class LibraryIndex: Sendable {
    struct Item: Sendable, Equatable {
        var path: String
        var version: FileVersion
        var facts: ImageFacts
        /// The placeholder rendered as a tiny PNG `data:` URI, for the gallery: made once per
        /// file version with the facts (only library items need it).
        var placeholderImage: String

        init(path: String, version: FileVersion, facts: ImageFacts) {
            self.path = path
            self.version = version
            self.facts = facts
            placeholderImage = ImageFacts.dataURI(rendering: facts.placeholder)
        }

        var width: Int { facts.width }
        var height: Int { facts.height }
        var bytes: Int64 { facts.bytes }
        var format: ImageFormat { facts.format }
    }

    struct Snapshot: Sendable {
        var items: [Item]
        /// Changes whenever any path or file version changes.
        var fingerprint: String
        var takenAt: Double
    }

    let root: String
    let maxAge: Double
    private let clock: any MonotonicClock
    private let snapshot = Locked<Snapshot?>(nil)
    private let known = Locked<[String: Item]>([:])
    private let scanning = Locked(())

    init(root: String, clock: any MonotonicClock, maxAge: Double = 2) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.path
        self.clock = clock
        self.maxAge = maxAge
    }

    /// The current snapshot, walking the folder again when the last walk is older than
    /// `maxAge`. Blocking: call it from a worker thread.
    func current() -> Snapshot {
        if let s = fresh() { return s }
        return scanning.withLock { _ in
            if let s = fresh() { return s }
            let fresh = scan()
            snapshot.withLock { $0 = fresh }
            return fresh
        }
    }

    /// The snapshot while the last walk is younger than `maxAge`, else nil. Never blocks: the
    /// event loop may ask.
    func fresh() -> Snapshot? {
        guard let s = snapshot.withLock({ $0 }), clock.now() - s.takenAt < maxAge else { return nil }
        return s
    }

    private func scan() -> Snapshot {
        var items: [Item] = []
        let previous = known.withLock { $0 }
        var seen: [String: Item] = [:]
        // Regular files only: symlinks are not listed (they may point anywhere); hidden
        // names are skipped, as the library refuses them.
        DirectoryWalker.walk(root) { entry in
            if let item = previous[entry.path], item.version == entry.version {
                items.append(item)
                seen[entry.path] = item
                return
            }
            let full = root + "/" + entry.path
            guard let bytes = Self.read(full), let format = ImageFormat.sniff(bytes),
                  let facts = try? ImageFacts.read(bytes, format: format, bytes: entry.version.size) else { return }
            let item = Item(path: entry.path, version: entry.version, facts: facts)
            items.append(item)
            seen[entry.path] = item
        }
        items.sort { $0.path < $1.path }
        known.withLock { $0 = seen }
        let fingerprint = StableHash.hex128(items.map { $0.path + "\u{0}" + $0.version.tag }.joined(separator: "\n"))
        return Snapshot(items: items, fingerprint: fingerprint, takenAt: clock.now())
    }

    /// The facts of one library file at the version `entry` holds: from the index when it
    /// knows that version, else read now and kept. Blocking: a worker thread calls it.
    func facts(of path: LibraryPath, entry: LibraryFileCache.Entry) throws -> ImageFacts {
        if let item = known.withLock({ $0[path.value] }), item.version == entry.file.version { return item.facts }
        guard let bytes = entry.content ?? entry.readAll() else { throw LibraryChange.changedWhileRead }
        let facts = try ImageFacts.read(bytes, format: entry.file.format, bytes: entry.file.size)
        known.withLock { $0[path.value] = Item(path: path.value, version: entry.file.version, facts: facts) }
        return facts
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = FileDescriptor(adopting: open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) else { return nil }
        let fd = file.raw
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size > 0, st.st_size < Int64(Int32.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n == bytes.count ? bytes : nil
    }
}
