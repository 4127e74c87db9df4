import Cache
import HTTP

/// The two cache tiers in the order a lookup visits them: memory, then disk (a disk hit
/// read from the file is promoted to memory). A transform's result goes into both.
final class VariantStore: Sendable {
    enum Tier: String, Sendable { case memory, disk }

    /// A hit: what to send and what to say about it.
    struct Hit: Sendable {
        var body: ResponseBody
        var contentType: String
        var etag: String
        var lastModified: Int
        var tier: Tier
    }

    let memory: MemoryCache
    let disk: DiskCache?

    init(memory: MemoryCache, disk: DiskCache?) {
        self.memory = memory
        self.disk = disk
    }

    func lookup(_ key: CacheKey) -> Hit? {
        if let variant = memory.get(key) {
            return Hit(body: .bytes(variant.bytes), contentType: variant.contentType, etag: variant.etag,
                       lastModified: variant.lastModified, tier: .memory)
        }
        guard let found = disk?.lookup(key) else { return nil }
        if let variant = found.variant { memory.put(key, variant) }
        // Straight from the verified entry file (sendfile), whether or not memory kept a copy.
        return Hit(body: .file(found.file, offset: found.bodyOffset, count: found.bodyLength),
                   contentType: found.contentType, etag: found.etag, lastModified: found.lastModified, tier: .disk)
    }

    func store(_ key: CacheKey, _ variant: CachedVariant) {
        memory.put(key, variant)
        disk?.put(key, variant)
    }
}
