import Foundation

/// The memory tier: decoded images with their response facts, bounded by total cost in bytes
/// (the loader's cost function), least recently used evicted first. O(1) per operation.
final class MemoryImageCache<Image: Sendable>: @unchecked Sendable {
    struct Entry: Sendable {
        var image: Image
        var info: CachedResponseInfo
        var cost: Int
    }

    /// A node of the recency list; `newer` toward the head (most recent).
    private final class Node {
        let key: String
        var entry: Entry
        var newer: Node?
        var older: Node?

        init(key: String, entry: Entry) {
            self.key = key
            self.entry = entry
        }
    }

    let capacity: Int
    private let lock = NSLock()
    private var nodes: [String: Node] = [:]
    private var newest: Node?
    private var oldest: Node?
    private var totalCost = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The entry, marked as just used.
    func entry(for key: String) -> Entry? {
        lock.criticalSection {
            guard let node = nodes[key] else { return nil }
            moveToFront(node)
            return node.entry
        }
    }

    /// Adds or replaces; an entry that alone exceeds the capacity is not kept (and the old one
    /// under its key goes, so a stale image is not served in its place).
    func insert(_ entry: Entry, for key: String) {
        lock.criticalSection {
            if let existing = nodes.removeValue(forKey: key) {
                unlink(existing)
                totalCost -= existing.entry.cost
            }
            guard entry.cost <= capacity else { return }
            let node = Node(key: key, entry: entry)
            nodes[key] = node
            pushFront(node)
            totalCost += entry.cost
            while totalCost > capacity, let victim = oldest {
                nodes.removeValue(forKey: victim.key)
                unlink(victim)
                totalCost -= victim.entry.cost
            }
        }
    }

    /// Replaces the response facts of an entry (after a 304), keeping its image.
    func updateInfo(_ info: CachedResponseInfo, for key: String) {
        lock.criticalSection {
            guard let node = nodes[key] else { return }
            node.entry.info = info
            moveToFront(node)
        }
    }

    func remove(_ key: String) {
        lock.criticalSection {
            guard let node = nodes.removeValue(forKey: key) else { return }
            unlink(node)
            totalCost -= node.entry.cost
        }
    }

    func removeAll() {
        lock.criticalSection {
            // Break the links so the nodes are freed.
            var node = newest
            while let current = node {
                node = current.older
                current.newer = nil
                current.older = nil
            }
            nodes.removeAll()
            newest = nil
            oldest = nil
            totalCost = 0
        }
    }

    var usage: (entries: Int, cost: Int) {
        lock.criticalSection { (nodes.count, totalCost) }
    }

    // MARK: - The recency list (called with the lock held)

    private func pushFront(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private func unlink(_ node: Node) {
        if let newer = node.newer { newer.older = node.older } else { newest = node.older }
        if let older = node.older { older.newer = node.newer } else { oldest = node.newer }
        node.newer = nil
        node.older = nil
    }

    private func moveToFront(_ node: Node) {
        guard newest !== node else { return }
        unlink(node)
        pushFront(node)
    }
}
