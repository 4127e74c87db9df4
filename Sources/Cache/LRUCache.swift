import Locking
import Synchronization

/// A least-recently-used map bounded by the total cost (bytes) of its values.
/// O(1) get, put and eviction: a dictionary into a doubly linked list kept in an array.
/// Not thread-safe by itself; `SharedLRUCache` wraps it in a lock.
@frozen
public struct LRUCache<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key
        /// nil once removed: a free slot must not keep its value alive (its bytes would be
        /// held beyond the capacity until the slot is reused).
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var prev: Int
        @usableFromInline var next: Int

        @inlinable
        init(key: Key, value: Value?, cost: Int, prev: Int, next: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.prev = prev
            self.next = next
        }
    }

    @usableFromInline var bound: Int
    /// The most cost it holds (`setCapacity` changes it).
    @inlinable public var capacity: Int { bound }
    @usableFromInline var cost = 0
    @usableFromInline var evictionCount = 0

    /// The summed cost of the stored values; never above `capacity`.
    @inlinable public var totalCost: Int { cost }
    /// How many values were pushed out to make room.
    @inlinable public var evictions: Int { evictionCount }
    @usableFromInline var nodes: [Node] = []
    @usableFromInline var free: [Int] = []
    @usableFromInline var index: [Key: Int] = [:]
    @usableFromInline var head = -1  // most recent
    @usableFromInline var tail = -1  // least recent

    @inlinable
    public init(capacity: Int) {
        self.bound = max(0, capacity)
    }

    @inlinable public var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    @inlinable
    public mutating func get(_ key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        moveToFront(i)
        return nodes[i].value
    }

    /// The value for `key` without touching its recency.
    @inlinable
    public func peek(_ key: Key) -> Value? {
        index[key].flatMap { nodes[$0].value }
    }

    /// A new bound: least recently used entries are evicted until the cost fits it. Returns
    /// the cost evicted.
    @discardableResult
    @inlinable
    public mutating func setCapacity(_ newCapacity: Int) -> Int {
        bound = max(0, newCapacity)
        var evicted = 0
        while cost > capacity, tail >= 0 {
            evicted += nodes[tail].cost
            remove(nodes[tail].key)
            evictionCount += 1
        }
        return evicted
    }

    /// Inserts or replaces; evicts least recently used entries until the cost fits.
    /// A value costlier than the whole capacity is not stored. Returns the evicted keys.
    @discardableResult
    @inlinable
    public mutating func put(_ key: Key, _ value: Value, cost: Int) -> [Key] {
        remove(key)
        guard cost <= capacity else { return [] }
        var evicted: [Key] = []
        while self.cost + cost > capacity, tail >= 0 {
            let victim = nodes[tail].key
            remove(victim)
            evictionCount += 1
            evicted.append(victim)
        }
        let node = Node(key: key, value: value, cost: cost, prev: -1, next: head)
        let i: Int
        if let slot = free.popLast() {
            nodes[slot] = node
            i = slot
        } else {
            nodes.append(node)
            i = nodes.count - 1
        }
        if head >= 0 { nodes[head].prev = i }
        head = i
        if tail < 0 { tail = i }
        index[key] = i
        self.cost += cost
        return evicted
    }

    @discardableResult
    @inlinable
    public mutating func remove(_ key: Key) -> Value? {
        guard let i = index.removeValue(forKey: key) else { return nil }
        unlink(i)
        cost -= nodes[i].cost
        free.append(i)
        let value = nodes[i].value
        nodes[i].value = nil
        return value
    }

    @inlinable
    /// Removes every value for which `shouldRemove` holds; returns how many.
    public mutating func removeAll(where shouldRemove: (Key, Value) -> Bool) -> Int {
        let doomed = index.compactMap { key, i in nodes[i].value.map { shouldRemove(key, $0) } == true ? key : nil }
        for key in doomed { _ = remove(key) }
        return doomed.count
    }

    /// Every key, most recent first.
    public var keys: [Key] {
        var out: [Key] = []
        out.reserveCapacity(index.count)
        var i = head
        while i >= 0 {
            out.append(nodes[i].key)
            i = nodes[i].next
        }
        return out
    }

    public mutating func removeAll() {
        nodes.removeAll()
        free.removeAll()
        index.removeAll()
        head = -1
        tail = -1
        cost = 0
    }

    /// Keys from most to least recently used (for tests and introspection).
    public var keysByRecency: [Key] {
        var keys: [Key] = []
        var i = head
        while i >= 0 {
            keys.append(nodes[i].key)
            i = nodes[i].next
        }
        return keys
    }

    @inlinable
    mutating func unlink(_ i: Int) {
        let p = nodes[i].prev, n = nodes[i].next
        if p >= 0 { nodes[p].next = n } else { head = n }
        if n >= 0 { nodes[n].prev = p } else { tail = p }
        nodes[i].prev = -1
        nodes[i].next = -1
    }

    @inlinable
    mutating func moveToFront(_ i: Int) {
        guard head != i else { return }
        unlink(i)
        nodes[i].next = head
        if head >= 0 { nodes[head].prev = i }
        head = i
        if tail < 0 { tail = i }
    }
}

/// `LRUCache` behind a mutex, for use from several event-loop and worker threads.
public final class SharedLRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let storage: Locked<LRUCache<Key, Value>>

    public init(capacity: Int) {
        storage = Locked(LRUCache(capacity: capacity))
    }

    @inlinable
    public func get(_ key: Key) -> Value? { storage.withLock { $0.get(key) } }

    @inlinable
    public func put(_ key: Key, _ value: Value, cost: Int) {
        storage.withLock { _ = $0.put(key, value, cost: cost) }
    }

    @inlinable
    public func remove(_ key: Key) { storage.withLock { _ = $0.remove(key) } }

    public var totalCost: Int { storage.withLock { $0.totalCost } }
    public var count: Int { storage.withLock { $0.count } }
}
