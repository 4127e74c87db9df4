import Locking

/// Misses of one source waiting for a worker. The first of them to start takes the others
/// along, so their source is loaded and decoded once for all (`ThumbnailService.produce`); the
/// jobs of the ones taken find nothing left to do.
final class SourceBatches: Sendable {
    struct Item: Sendable {
        let flight: String
        let request: ThumbnailRequest
        let versionKnownEarlier: Bool
    }

    private let queued = Locked<[String: [Item]]>([:])

    func add(_ batch: String, _ item: Item) {
        queued.withLock { $0[batch, default: []].append(item) }
    }

    /// Every item queued for `batch` when `flight` is still among them; nil when another worker took it.
    func take(_ batch: String, for flight: String) -> [Item]? {
        queued.withLock { table in
            guard let items = table[batch], items.contains(where: { $0.flight == flight }) else { return nil }
            table[batch] = nil
            return items
        }
    }

    /// Takes `flight` out of `batch` (its job was refused).
    func remove(_ batch: String, _ flight: String) {
        queued.withLock { table in
            table[batch]?.removeAll { $0.flight == flight }
            if table[batch]?.isEmpty == true { table[batch] = nil }
        }
    }
}
