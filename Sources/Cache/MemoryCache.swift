import Synchronization

/// Variants in memory: an LRU bounded in bytes, safe to share between threads, with the
/// counters metrics report.
public final class MemoryCache: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
        public var evictions = 0
        public var bytes = 0
        public var entries = 0
    }

    private struct State {
        var lru: LRUCache<String, CachedVariant>
        var hits = 0
        var misses = 0
    }

    private let state: Mutex<State>

    public init(capacityBytes: Int) {
        state = Mutex(State(lru: LRUCache(capacity: capacityBytes)))
    }

    public func get(_ key: CacheKey) -> CachedVariant? {
        state.withLock { s in
            let value = s.lru.get(key.hash)
            if value == nil { s.misses += 1 } else { s.hits += 1 }
            return value
        }
    }

    public func put(_ key: CacheKey, _ variant: CachedVariant) {
        state.withLock { _ = $0.lru.put(key.hash, variant, cost: variant.cost) }
    }

    public var statistics: Statistics {
        state.withLock { s in
            Statistics(hits: s.hits, misses: s.misses, evictions: s.lru.evictions, bytes: s.lru.totalCost, entries: s.lru.count)
        }
    }
}
