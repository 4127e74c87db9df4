import Cache
import HTTP

/// The two cache tiers in the order a lookup visits them: memory, then disk (a disk hit is
/// promoted to memory). A transform's result goes into both.
final class VariantStore: Sendable {
    enum Tier: String, Sendable { case memory, disk }

    let memory: MemoryCache
    let disk: DiskCache?

    init(memory: MemoryCache, disk: DiskCache?) {
        self.memory = memory
        self.disk = disk
    }

    func lookup(_ key: CacheKey) -> (CachedVariant, Tier)? {
        if let hit = memory.get(key) { return (hit, .memory) }
        if let hit = disk?.get(key) {
            memory.put(key, hit)
            return (hit, .disk)
        }
        return nil
    }

    func store(_ key: CacheKey, _ variant: CachedVariant) {
        memory.put(key, variant)
        disk?.put(key, variant)
    }
}
