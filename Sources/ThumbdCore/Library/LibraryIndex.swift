import Cache
import Clocks
import Imaging
import Locking
import Video

/// The library's images in a stable order (by path), with their facts (sizes, format,
/// placeholder). Facts are read once per image version and kept until it changes; the
/// catalog (a folder's tree, a bucket's keys) is read again at most every `maxAge` seconds.
package final class LibraryIndex: Sendable {
    /// One image as the catalog lists it.
    package struct Entry: Sendable, Equatable {
        package var path: String
        /// Compared to tell versions apart: equal means the same bytes.
        package var version: String
        /// Names the version the same way on every replica (fingerprints are made from it).
        package var tag: String
        package var size: Int64

        package init(path: String, version: String, tag: String, size: Int64) {
            self.path = path
            self.version = version
            self.tag = tag
            self.size = size
        }
    }

    package struct Item: Sendable, Equatable {
        package var path: String
        package var version: String
        package var tag: String
        package var facts: ImageFacts
        /// The placeholder rendered as a tiny PNG `data:` URI, for the gallery: made once per
        /// version with the facts (only library items need it).
        package var placeholderImage: String

        package init(path: String, version: String, tag: String, facts: ImageFacts) {
            self.path = path
            self.version = version
            self.tag = tag
            self.facts = facts
            placeholderImage = ImageFacts.dataURI(rendering: facts.placeholder)
        }

        package var width: Int { facts.width }
        package var height: Int { facts.height }
        package var bytes: Int64 { facts.bytes }
        package var format: ImageFormat { facts.format }
    }

    package struct Snapshot: Sendable {
        package var items: [Item]
        /// Changes whenever any path or version changes.
        package var fingerprint: String
        package var takenAt: Double

        package init(items: [Item], fingerprint: String, takenAt: Double) {
            self.items = items
            self.fingerprint = fingerprint
            self.takenAt = takenAt
        }
    }

    package let catalog: any LibraryCatalog
    package let maxAge: Double
    private let clock: any MonotonicClock
    private let snapshot = Locked<Snapshot?>(nil)
    private let known = Locked<[String: Item]>([:])
    private let scanning = Locked(())

    /// What FFmpeg may spend on a video's poster (its placeholder).
    package let reading: FactReading

    package init(catalog: any LibraryCatalog, clock: any MonotonicClock, maxAge: Double = 2,
                 reading: FactReading = FactReading()) {
        self.catalog = catalog
        self.clock = clock
        self.maxAge = maxAge
        self.reading = reading
    }

    package static let defaultVideoLimits = VideoDecoder.Limits(maxPixels: 50_000_000, maxDuration: 4 * 3600, maxSeconds: 20)

    /// The current snapshot, reading the catalog again when the last read is older than
    /// `maxAge`. When the catalog cannot be read (the store is down), the last snapshot, if
    /// there is one. Blocking: call it from a worker thread.
    package func current() throws -> Snapshot {
        if let s = fresh() { return s }
        return try scanning.withLock { _ throws -> Snapshot in
            let last = snapshot.withLock { $0 }
            if let last, clock.now() - last.takenAt < maxAge { return last }
            let fresh: Snapshot
            do {
                fresh = try scan()
            } catch {
                if let last { return last }
                throw error
            }
            snapshot.withLock { $0 = fresh }
            return fresh
        }
    }

    /// The snapshot while the last read is younger than `maxAge`, else nil. Never blocks: the
    /// event loop may ask.
    package func fresh() -> Snapshot? {
        guard let s = snapshot.withLock({ $0 }), clock.now() - s.takenAt < maxAge else { return nil }
        return s
    }

    private func scan() throws -> Snapshot {
        var items: [Item] = []
        let previous = known.withLock { $0 }
        var seen: [String: Item] = [:]
        for entry in try catalog.entries() {
            if let item = previous[entry.path], item.version == entry.version {
                items.append(item)
                seen[entry.path] = item
                continue
            }
            // Files that are not images or videos are skipped.
            guard let read = catalog.read(entry), let facts = try? ImageFacts.read(read, bytes: entry.size, reading: reading)
            else { continue }
            let item = Item(path: entry.path, version: entry.version, tag: entry.tag, facts: facts)
            items.append(item)
            seen[entry.path] = item
        }
        items.sort { $0.path < $1.path }
        known.withLock { $0 = seen }
        let fingerprint = StableHash.hex128(items.map { $0.path + "\u{0}" + $0.tag }.joined(separator: "\n"))
        return Snapshot(items: items, fingerprint: fingerprint, takenAt: clock.now())
    }

    /// The facts of `path` at `version`, when the index holds them.
    package func knownFacts(of path: String, version: String) -> ImageFacts? {
        guard let item = known.withLock({ $0[path] }), item.version == version else { return nil }
        return item.facts
    }

    /// The facts of `path` at `version` from its bytes, kept for the next asker (the listing
    /// too). Blocking: a worker thread calls it.
    package func readFacts(of path: String, version: String, tag: String, content: SourceContent, bytes: Int64) throws -> ImageFacts {
        let facts = try ImageFacts.read(content, bytes: bytes, reading: reading)
        known.withLock { $0[path] = Item(path: path, version: version, tag: tag, facts: facts) }
        return facts
    }
}
