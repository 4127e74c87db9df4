import Cache
import HTTP

/// The two cache tiers of thumbnails (and remote originals), in the order a lookup visits them: memory, then disk (a disk hit
/// read from the file is promoted to memory). A transform's result goes into both. It also
/// decides how a variant is presented (its response fields), so a memory hit carries its
/// response head ready to send.
final class VariantStore: Sendable {
    enum Tier: String, Sendable { case memory, disk }

    /// A variant's prepared responses, without and with `Vary: Accept` (the same key serves
    /// `fm=webp` and an `fm=auto` that negotiated WebP).
    final class PreparedPair: Sendable {
        let plain: PreparedRepresentation
        let varying: PreparedRepresentation

        init(body: ResponseBody, contentType: String, etag: String, lastModified: Int, tier: Tier, fields: ImageFields) {
            let lastModified = VariantStore.timestamp(lastModified)
            func prepared(vary: Bool) -> PreparedRepresentation {
                PreparedRepresentation(VariantStore.representation(
                    body: body, contentType: contentType, etag: etag, lastModified: lastModified, tier: tier,
                    timing: ServerTiming([VariantStore.hitStep(tier)]), vary: vary, fields: fields))
            }
            plain = prepared(vary: false)
            varying = prepared(vary: true)
        }

        subscript(vary: Bool) -> PreparedRepresentation { vary ? varying : plain }

        var headBytes: Int { plain.headBytes + varying.headBytes }
    }

    /// A variant in the memory tier, with its prepared memory-hit responses.
    final class MemoryVariant: Sendable {
        let variant: CachedVariant
        let prepared: PreparedPair
        /// The full key (the tier keys by its hash): what a purge matches.
        let keyText: String

        init(_ variant: CachedVariant, keyText: String, fields: ImageFields) {
            self.variant = variant
            self.keyText = keyText
            prepared = PreparedPair(body: .bytes(variant.bytes), contentType: variant.contentType, etag: variant.etag,
                                    lastModified: variant.lastModified, tier: .memory, fields: fields)
        }

        var cost: Int { variant.cost + prepared.headBytes + keyText.utf8.count }
    }

    /// A hit, ready to answer any request for it.
    struct Hit {
        let prepared: PreparedRepresentation
        let tier: Tier

        func response(to request: HTTPRequest) -> HTTPResponse { prepared.response(to: request) }
    }

    let memory: MemoryCache<MemoryVariant>
    let disk: DiskCache?
    private let fields: ImageFields

    init(memoryBytes: Int, disk: DiskCache?, fields: ImageFields) {
        self.memory = MemoryCache(capacityBytes: memoryBytes)
        self.disk = disk
        self.fields = fields
    }

    func lookup(_ key: CacheKey, vary: Bool) -> Hit? {
        if let found = memory.get(key) {
            return Hit(prepared: found.prepared[vary], tier: .memory)
        }
        guard let found = disk?.lookup(key) else { return nil }
        if let variant = found.variant { promote(key, variant) }
        // Straight from the verified entry file (sendfile), whether or not memory kept a copy;
        // its heads are prepared once per open entry.
        let prepared = found.memo.value {
            PreparedPair(body: .file(found.file, offset: found.bodyOffset, count: found.bodyLength), contentType: found.contentType,
                         etag: found.etag, lastModified: found.lastModified, tier: .disk, fields: fields)
        }
        return Hit(prepared: prepared[vary], tier: .disk)
    }

    /// The variant itself from either tier (a disk hit is promoted), for sources that need its
    /// bytes, with the tier it came from.
    func variant(_ key: CacheKey) -> (variant: CachedVariant, tier: Tier)? {
        if let found = memory.get(key) { return (found.variant, .memory) }
        guard let variant = disk?.get(key) else { return nil }
        promote(key, variant)
        return (variant, .disk)
    }

    /// The variant from the memory tier only.
    func memoryVariant(_ key: CacheKey) -> CachedVariant? { memory.get(key)?.variant }

    func store(_ key: CacheKey, _ variant: CachedVariant) {
        promote(key, variant)
        disk?.put(key, variant)
    }

    private func promote(_ key: CacheKey, _ variant: CachedVariant) {
        // A zero-sized tier keeps nothing: skip preparing heads it would drop.
        guard memory.capacityBytes > 0 else { return }
        let entry = MemoryVariant(variant, keyText: key.text, fields: fields)
        memory.put(key, entry, cost: entry.cost)
    }

    /// Removes every variant of a source (keys starting with `prefix`), or the one entry keyed
    /// `keyText`, from both tiers; returns how many entries went. Blocking (the disk tier reads
    /// its entries' headers): a worker thread calls it.
    func purge(prefix: String) -> Int {
        purge { $0.hasPrefix(prefix) }
    }

    func purge(keyText: String) -> Int {
        purge { $0 == keyText }
    }

    private func purge(_ matches: @Sendable (String) -> Bool) -> Int {
        let fromMemory = memory.removeAll { matches($0.keyText) }
        let fromDisk = disk?.removeAll(whereKey: matches) ?? 0
        return fromMemory + fromDisk
    }

    /// A variant's response fields: Cache-Control (and Accept-CH when configured), Vary when
    /// the format was negotiated, X-Cache (the tier it came from, or miss) and Server-Timing,
    /// then the validators.
    static func representation(body: ResponseBody, contentType: String, etag: String, lastModified: Timestamp?,
                               tier: Tier?, timing: ServerTiming, vary: Bool, fields: ImageFields) -> Representation {
        var headers = fields.headers
        if vary { headers.add("Vary", "Accept") }
        headers.add("X-Cache", tier?.rawValue ?? "miss")
        headers.add("Server-Timing", timing.fieldValue)
        return Representation(contentType: contentType, body: body, etag: EntityTag(etag),
                              lastModified: lastModified, headers: headers)
    }

    /// The representation of a variant the thumbnail service answered with.
    func representation(of variant: CachedVariant, timing: ServerTiming, tier: Tier?, vary: Bool) -> Representation {
        Self.representation(body: .bytes(variant.bytes), contentType: variant.contentType, etag: variant.etag,
                            lastModified: Self.timestamp(variant.lastModified), tier: tier, timing: timing, vary: vary,
                            fields: fields)
    }

    /// Hits name their tier; a lookup's few microseconds are not worth a `dur`.
    static func hitStep(_ tier: Tier) -> ServerTiming.Step { ServerTiming.Step("cache", description: tier.rawValue) }

    /// The variant's Last-Modified: its source's, or none when the source had none (0).
    static func timestamp(_ seconds: Int) -> Timestamp? { seconds > 0 ? Timestamp(seconds: seconds) : nil }
}
