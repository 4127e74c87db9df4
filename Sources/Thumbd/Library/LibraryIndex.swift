import Locking
import Cache
import FileSystem
import Foundation
import HTTP
import Imaging
import Synchronization

/// The library's images in a stable order (by path), with their sizes read from headers.
/// A header is read once per file version (size and mtime) and kept until the file
/// changes; the folder itself is walked again at most every `maxAge` seconds.
final class LibraryIndex: Sendable {
    struct Item: Sendable, Equatable {
        var path: String
        var width: Int
        var height: Int
        var bytes: Int64
        var format: ImageFormat
        var version: FileVersion
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
        if let s = snapshot.withLock({ $0 }), clock.now() - s.takenAt < maxAge { return s }
        return scanning.withLock { _ in
            if let s = snapshot.withLock({ $0 }), clock.now() - s.takenAt < maxAge { return s }
            let fresh = scan()
            snapshot.withLock { $0 = fresh }
            return fresh
        }
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
            guard let format = Self.format(of: full), let header = try? ImageHeader.read(path: full) else { return }
            let (w, h) = header.orientedSize
            let item = Item(path: entry.path, width: w, height: h, bytes: entry.version.size, format: format, version: entry.version)
            items.append(item)
            seen[entry.path] = item
        }
        items.sort { $0.path < $1.path }
        known.withLock { $0 = seen }
        let fingerprint = StableHash.hex128(items.map { $0.path + "\u{0}" + $0.version.tag }.joined(separator: "\n"))
        return Snapshot(items: items, fingerprint: fingerprint, takenAt: clock.now())
    }

    private static func format(of path: String) -> ImageFormat? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: ImageFormat.sniffLength)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? ImageFormat.sniff(head[0..<n]) : nil
    }
}
