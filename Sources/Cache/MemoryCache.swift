import Locking
import Synchronization

/// The memory tier: values by cache key in an LRU bounded in bytes, safe to share between
/// threads, with the counters metrics report. Generic so the app can keep, next to each
/// variant, what it needs to answer from it quickly (its prepared response head).
public final class MemoryCache<Value: Sendable>: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
        public var evictions = 0
        public var bytes = 0
        public var entries = 0
    }

    @usableFromInline struct State {
        @usableFromInline var lru: LRUCache<String, Value>
        @usableFromInline var hits = 0
        @usableFromInline var misses = 0

        init(lru: LRUCache<String, Value>) { self.lru = lru }
    }

    @usableFromInline let state: Locked<State>
    public let capacityBytes: Int

    public init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
        state = Locked(State(lru: LRUCache(capacity: capacityBytes)))
    }

    @inlinable
    public func get(_ key: CacheKey) -> Value? {
        state.withLock { s in
            let value = s.lru.get(key.hash)
            if value == nil { s.misses += 1 } else { s.hits += 1 }
            return value
        }
    }

    /// Stores `value`, which costs `cost` bytes of the bound (a value over the whole bound is not kept).
    @inlinable
    public func put(_ key: CacheKey, _ value: Value, cost: Int) {
        state.withLock { _ = $0.lru.put(key.hash, value, cost: cost) }
    }

    /// A new bound (the entries least recently used evicted to fit); returns the bytes evicted.
    @discardableResult
    public func setCapacity(_ bytes: Int) -> Int {
        state.withLock { $0.lru.setCapacity(bytes) }
    }

    public var currentCapacity: Int { state.withLock { $0.lru.capacity } }

    /// Removes every value for which `shouldRemove` holds; returns how many.
    public func removeAll(where shouldRemove: @Sendable (Value) -> Bool) -> Int {
        state.withLock { $0.lru.removeAll { _, value in shouldRemove(value) } }
    }

    public var statistics: Statistics {
        state.withLock { s in
            Statistics(hits: s.hits, misses: s.misses, evictions: s.lru.evictions, bytes: s.lru.totalCost, entries: s.lru.count)
        }
    }
}

extension MemoryCache where Value == CachedVariant {
    public func put(_ key: CacheKey, _ variant: CachedVariant) { put(key, variant, cost: variant.cost) }
}
