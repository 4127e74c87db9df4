import Foundation
import Locking

/// The memory tier: decoded images with their response facts, bounded by total cost in bytes
/// (the loader's cost function), least recently used evicted first. O(1) per operation.
final class MemoryImageCache<Image: Sendable>: Sendable {
    struct Entry: Sendable {
        var image: Image
        var info: CachedResponseInfo
        var cost: Int
    }

    /// A node of the recency list; `newer` toward the head (most recent).
    fileprivate final class Node {
        let key: String
        var entry: Entry
        var newer: Node?
        var older: Node?

        init(key: String, entry: Entry) {
            self.key = key
            self.entry = entry
        }
    }

    /// The index and the recency list, behind one lock.
    fileprivate struct State {
        var nodes: [String: Node] = [:]
        var newest: Node?
        var oldest: Node?
        var totalCost = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The entry, marked as just used.
    func entry(for key: String) -> Entry? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            state.moveToFront(node)
            return node.entry
        }
    }

    /// Adds or replaces; an entry that alone exceeds the capacity is not kept (and the old one
    /// under its key goes, so a stale image is not served in its place).
    func insert(_ entry: Entry, for key: String) {
        let capacity = self.capacity
        state.withLock { state in
            state.remove(key)
            guard entry.cost <= capacity else { return }
            let node = Node(key: key, entry: entry)
            state.nodes[key] = node
            state.pushFront(node)
            state.totalCost += entry.cost
            while state.totalCost > capacity, let victim = state.oldest {
                state.remove(victim.key)
            }
        }
    }

    func remove(_ key: String) {
        state.withLock { $0.remove(key) }
    }

    func removeAll() {
        state.withLock { state in
            // Break the links so the nodes are freed.
            var node = state.newest
            while let current = node {
                node = current.older
                current.newer = nil
                current.older = nil
            }
            state = State()
        }
    }

    var usage: (entries: Int, cost: Int) {
        state.withLock { ($0.nodes.count, $0.totalCost) }
    }
}

// MARK: - The recency list

extension MemoryImageCache.State {
    mutating func remove(_ key: String) {
        guard let node = nodes.removeValue(forKey: key) else { return }
        unlink(node)
        totalCost -= node.entry.cost
    }

    mutating func pushFront(_ node: MemoryImageCache.Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    mutating func unlink(_ node: MemoryImageCache.Node) {
        if let newer = node.newer { newer.older = node.older } else { newest = node.older }
        if let older = node.older { older.newer = node.newer } else { oldest = node.newer }
        node.newer = nil
        node.older = nil
    }

    mutating func moveToFront(_ node: MemoryImageCache.Node) {
        guard newest !== node else { return }
        unlink(node)
        pushFront(node)
    }
}
