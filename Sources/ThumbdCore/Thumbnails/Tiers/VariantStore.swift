import Cache

/// The cache tiers of thumbnails, in the order a lookup visits them: memory, then disk (a
/// disk hit read from the file is promoted to memory), then, on a worker only, the shared
/// tier of every replica when there is one (a shared hit is stored in both local tiers). A
/// transform's result goes into both local tiers, and into the shared one behind the answer.
/// Each memory entry keeps the heads its hits are answered with, made once by the presenter,
/// so a memory hit is a lookup and a write.
package final class VariantStore: Sendable {
    /// A variant in the memory tier, with its prepared hit responses.
    package final class MemoryVariant: Sendable {
        package let variant: CachedVariant
        package let prepared: PreparedVariant
        /// The full key (the tier keys by its hash): what a purge matches.
        package let keyText: String

        package init(_ variant: CachedVariant, keyText: String, prepared: PreparedVariant) {
            self.variant = variant
            self.keyText = keyText
            self.prepared = prepared
        }

        package var cost: Int { variant.cost + prepared.headBytes + keyText.utf8.count }
    }

    /// A hit: its prepared heads, and its content for requests those do not fit.
    package struct Hit {
        package enum Found {
            case memory(MemoryVariant)
            case disk(VariantContent, PreparedVariant)
        }

        package let found: Found

        package var tier: CacheTier {
            if case .memory = found { return .memory }
            return .disk
        }

        package var prepared: PreparedVariant {
            switch found {
            case .memory(let entry): entry.prepared
            case .disk(_, let prepared): prepared
            }
        }

        package var content: VariantContent {
            switch found {
            case .memory(let entry): VariantContent(entry.variant)
            case .disk(let content, _): content
            }
        }

        package init(found: Found) {
            self.found = found
        }
    }

    package let memory: MemoryCache<MemoryVariant>
    package let disk: DiskCache?
    /// The object store's tier, shared by the replicas (`cache.shared.root`); nil: off.
    package let shared: (any SharedVariantTier)?
    /// Makes the heads a variant's hits are answered with (the app's presenter).
    private let prepare: @Sendable (VariantContent, CacheTier) -> PreparedVariant

    /// Bounds the memory tier by what transforms holding `reserved` bytes leave of the `room`
    /// they share with it (never above its configured size); true when entries were evicted.
    package func yieldMemory(toTransformsHolding reserved: Int, of room: Int) -> Bool {
        memory.setCapacity(max(0, min(memory.capacityBytes, room - reserved))) > 0
    }

    package init(memoryBytes: Int, disk: DiskCache?, shared: (any SharedVariantTier)? = nil,
                 prepare: @escaping @Sendable (VariantContent, CacheTier) -> PreparedVariant) {
        self.memory = MemoryCache(capacityBytes: memoryBytes)
        self.disk = disk
        self.shared = shared
        self.prepare = prepare
    }

    package func lookup(_ key: CacheKey) -> Hit? {
        if let found = memory.get(key) {
            return Hit(found: .memory(found))
        }
        guard let found = disk?.lookup(key) else { return nil }
        if let variant = found.variant { promote(key, variant) }
        // Straight from the verified entry file (sendfile), whether or not memory kept a copy;
        // its heads are prepared once per open entry.
        let content = VariantContent(body: .file(found.file, offset: found.bodyOffset, count: found.bodyLength),
                                                 contentType: found.contentType, etag: found.etag, lastModified: found.lastModified)
        let prepared = found.memo.value { [prepare] in prepare(content, .disk) }
        return Hit(found: .disk(content, prepared))
    }

    /// The variant itself from either tier (a disk hit is promoted), with the tier it came from.
    package func variant(_ key: CacheKey) -> (variant: CachedVariant, tier: CacheTier)? {
        if let found = memory.get(key) { return (found.variant, .memory) }
        guard let variant = disk?.get(key) else { return nil }
        promote(key, variant)
        return (variant, .disk)
    }

    /// The variant the shared tier holds, stored in both local tiers; nil without a shared
    /// tier, or when it has none (or was skipped). Blocking: a worker calls it.
    package func sharedVariant(_ key: CacheKey, sourcePrefix: String) -> CachedVariant? {
        guard let variant = shared?.variant(key, sourcePrefix: sourcePrefix) else { return nil }
        store(key, variant)
        return variant
    }

    /// The faces kept under `key` (`ThumbnailKeys.faces`) in either local tier.
    package func faces(_ key: CacheKey) -> FoundFaces? {
        variant(key).flatMap { FoundFaces(entry: $0.variant) }
    }

    /// Faces found, into both local tiers beside the source's thumbnails.
    package func keep(_ faces: FoundFaces, as key: CacheKey) {
        store(key, faces.entry)
    }

    /// A made variant into both local tiers.
    package func store(_ key: CacheKey, _ variant: CachedVariant) {
        promote(key, variant)
        disk?.put(key, variant)
    }

    /// A made variant into the shared tier, in the background.
    package func share(_ key: CacheKey, sourcePrefix: String, _ variant: CachedVariant) {
        shared?.write(key, sourcePrefix: sourcePrefix, variant)
    }

    private func promote(_ key: CacheKey, _ variant: CachedVariant) {
        // A zero-sized tier keeps nothing: skip preparing heads it would drop.
        guard memory.capacityBytes > 0 else { return }
        let entry = MemoryVariant(variant, keyText: key.text, prepared: prepare(VariantContent(variant), .memory))
        memory.put(key, entry, cost: entry.cost)
    }

    /// Removes every variant of a source (keys starting with `prefix`) from both local tiers;
    /// returns how many entries went. Blocking (the disk tier reads its entries' headers): a
    /// worker thread calls it.
    package func purge(prefix: String) -> Int {
        let fromMemory = memory.removeAll { $0.keyText.hasPrefix(prefix) }
        let fromDisk = disk?.removeAll(whereKey: { $0.hasPrefix(prefix) }) ?? 0
        return fromMemory + fromDisk
    }
}
