import Cache
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
        var version: String
    }

    struct Snapshot: Sendable {
        var items: [Item]
        /// Changes whenever any path or file version changes.
        var fingerprint: String
        var takenAt: Double
    }

    let root: String
    let maxAge: Double
    private let snapshot = Mutex<Snapshot?>(nil)
    private let known = Mutex<[String: Item]>([:])
    private let scanning = Mutex(())

    init(root: String, maxAge: Double = 2) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.path
        self.maxAge = maxAge
    }

    /// The current snapshot, walking the folder again when the last walk is older than
    /// `maxAge`. Blocking: call it from a worker thread.
    func current() -> Snapshot {
        if let s = snapshot.withLock({ $0 }), MonotonicClock.now() - s.takenAt < maxAge { return s }
        return scanning.withLock { _ in
            if let s = snapshot.withLock({ $0 }), MonotonicClock.now() - s.takenAt < maxAge { return s }
            let fresh = scan()
            snapshot.withLock { $0 = fresh }
            return fresh
        }
    }

    private func scan() -> Snapshot {
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        var items: [Item] = []
        let previous = known.withLock { $0 }
        var seen: [String: Item] = [:]
        let base = URL(fileURLWithPath: root)
        if let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles]) {
            for case let url as URL in walker {
                // Regular files only: symlinks are not listed (they may point anywhere).
                guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
                let full = url.standardizedFileURL.path
                guard full.hasPrefix(root + "/") else { continue }
                let relative = String(full.dropFirst(root.count + 1))
                let size = Int64(values.fileSize ?? 0)
                let mtime = values.contentModificationDate?.timeIntervalSince1970 ?? 0
                let version = "\(size)-\(Int64(mtime * 1_000_000_000))"
                if let item = previous[relative], item.version == version {
                    items.append(item)
                    seen[relative] = item
                    continue
                }
                guard let header = try? ImageHeader.read(path: full), let format = Self.format(of: full) else { continue }
                let (w, h) = header.orientedSize
                let item = Item(path: relative, width: w, height: h, bytes: size, format: format, version: version)
                items.append(item)
                seen[relative] = item
            }
        }
        items.sort { $0.path < $1.path }
        known.withLock { $0 = seen }
        let fingerprint = StableHash.hex128(items.map { $0.path + "\u{0}" + $0.version }.joined(separator: "\n"))
        return Snapshot(items: items, fingerprint: fingerprint, takenAt: MonotonicClock.now())
    }

    private static func format(of path: String) -> ImageFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: ImageFormat.sniffLength)) ?? Data()
        return ImageFormat.sniff(Array(head))
    }
}
