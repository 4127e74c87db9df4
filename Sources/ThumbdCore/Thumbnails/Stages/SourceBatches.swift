import Locking

/// Misses of one source waiting for a worker, and whether a worker is making that source now.
/// One worker at a time makes a source: the first job to start takes every miss queued for it,
/// and the misses that arrive while it works wait for it (even with other workers idle) and are
/// taken by it: those that arrive while it loads the source join what it makes now (`arrived`),
/// the later ones are made next, together (`next`), so their source is loaded and decoded once
/// for all (`ThumbnailService.produce`). A grid's 1x, 2x and detail sizes arrive within a
/// millisecond or two: idle workers would each have taken one alone. The jobs of the ones taken
/// find nothing left to do.
package final class SourceBatches: Sendable {
    package struct Item: Sendable {
        package let flight: String
        package let request: ThumbnailRequest
        /// The source's version when the request knew it before the source was asked.
        package let knownVersion: SourceVersion?

        package var versionKnownEarlier: Bool { knownVersion != nil }

        package init(flight: String, request: ThumbnailRequest, knownVersion: SourceVersion?) {
            self.flight = flight
            self.request = request
            self.knownVersion = knownVersion
        }
    }

    private struct Batch {
        var items: [Item] = []
        /// A worker is making this source; it takes `items` when done (`next`).
        var making = false
    }

    private let table = Locked<[String: Batch]>([:])

    /// Queues `item`; false when a worker is making the source, which takes it (no job needed).
    package func add(_ batch: String, _ item: Item) -> Bool {
        table.withLock { table in
            var queued = table[batch] ?? Batch()
            queued.items.append(item)
            table[batch] = queued
            return !queued.making
        }
    }

    /// Every item queued for `batch` when `flight` is still among them and no worker is making
    /// the source (then the caller makes it, and calls `next` until it returns nil); nil when
    /// another worker took it or will.
    package func take(_ batch: String, for flight: String) -> [Item]? {
        table.withLock { table in
            guard let queued = table[batch], !queued.making, queued.items.contains(where: { $0.flight == flight }) else { return nil }
            table[batch] = Batch(items: [], making: true)
            return queued.items
        }
    }

    /// The items queued for `batch` while its maker worked, for it to make next; nil when none
    /// (the source is no longer being made).
    package func next(_ batch: String) -> [Item]? {
        table.withLock { table in
            guard let queued = table[batch], !queued.items.isEmpty else {
                table[batch] = nil
                return nil
            }
            table[batch] = Batch(items: [], making: true)
            return queued.items
        }
    }

    /// The items queued for `batch` since its maker took it, joining what it makes now: they
    /// arrived while it loaded the source.
    package func arrived(_ batch: String) -> [Item] {
        table.withLock { table in
            guard let queued = table[batch]?.items, !queued.isEmpty else { return [] }
            table[batch]?.items = []
            return queued
        }
    }

    /// Takes `flight` out of `batch` (its job was refused); false when a maker took it first.
    package func remove(_ batch: String, _ flight: String) -> Bool {
        table.withLock { table in
            guard let index = table[batch]?.items.firstIndex(where: { $0.flight == flight }) else { return false }
            table[batch]?.items.remove(at: index)
            if let left = table[batch], left.items.isEmpty, !left.making { table[batch] = nil }
            return true
        }
    }
}
