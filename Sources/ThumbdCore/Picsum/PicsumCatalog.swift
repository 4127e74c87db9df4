import Cache

/// The library's images under Picsum's numeric ids, for one snapshot of the library. Videos
/// are left out: Picsum's clients expect photos, and ask `/id/{id}/{w}/{h}` for them.
///
/// An image's id comes from its path alone: a stable hash of it, below a million. Replicas
/// with the same library therefore agree without talking, and adding or removing images
/// leaves every other image's id as it was (ids that shifted would make caches serve one
/// image under another's URL until they expire). When two paths land on one number, the
/// later in path order takes the next free one; that is the only way an id can change, and
/// only for the image whose number a new one took (about one chance in a million per image).
package struct PicsumCatalog: Sendable {
    package static let idCount = 1_000_000

    package struct Entry: Sendable {
        package let id: Int
        package let item: LibraryIndex.Item

        package init(id: Int, item: LibraryIndex.Item) {
            self.id = id
            self.item = item
        }
    }

    /// In path order.
    package let entries: [Entry]
    /// The snapshot's: changes whenever a path or a file version does.
    package let fingerprint: String
    private let positions: [Int: Int]

    package init(_ snapshot: LibraryIndex.Snapshot) {
        var positions: [Int: Int] = [:]
        var entries: [Entry] = []
        entries.reserveCapacity(snapshot.items.count)
        for item in snapshot.items where !item.format.isVideo {
            var id = Self.preferredID(path: item.path)
            while positions[id] != nil { id = (id + 1) % Self.idCount }
            positions[id] = entries.count
            entries.append(Entry(id: id, item: item))
        }
        self.entries = entries
        self.positions = positions
        fingerprint = snapshot.fingerprint
    }

    /// The id a path has unless an earlier path took it.
    package static func preferredID(path: String) -> Int { Int(stableHash(path) % UInt64(idCount)) }

    /// 64 bits of the stable hash (the same on every machine and in every run).
    package static func stableHash(_ text: String) -> UInt64 {
        UInt64(StableHash.hex128(text).prefix(16), radix: 16) ?? 0
    }

    /// How a URL picks an image.
    package enum Pick: Equatable, Sendable {
        case id(Int)
        /// By a stable hash of the text.
        case seed(String)
        case random
    }

    package func entry(id: Int) -> Entry? { positions[id].map { entries[$0] } }

    /// The image a URL picks: by id, by a stable hash of the seed over the images in path
    /// order (the same seed, the same image, while the library is the same), or at random.
    package func entry(_ pick: Pick) -> Entry? {
        switch pick {
        case .id(let id): entry(id: id)
        case .seed(let seed): entries.isEmpty ? nil : entries[Int(Self.stableHash("seed|" + seed) % UInt64(entries.count))]
        case .random: entries.randomElement()
        }
    }

    /// An id or seed that names no image (or a library with none).
    package struct Missing: Error, Equatable {
        package let pick: Pick

        package init(pick: Pick) {
            self.pick = pick
        }
    }
}
