import Cache
import HTTP

/// The two cache tiers in the order a lookup visits them: memory, then disk (a disk hit
/// read from the file is promoted to memory). A transform's result goes into both. It also
/// decides how a variant is presented (its response fields), so a memory hit carries its
/// response head ready to send.
final class VariantStore: Sendable {
    enum Tier: String, Sendable { case memory, disk }

    /// A variant in the memory tier with its prepared responses, without and with `Vary: Accept`
    /// (the same key serves `fm=webp` and an `fm=auto` that negotiated WebP).
    final class MemoryVariant: Sendable {
        let variant: CachedVariant
        let plain: PreparedRepresentation
        let varying: PreparedRepresentation

        init(_ variant: CachedVariant, cacheControl: String) {
            self.variant = variant
            let body = ResponseBody.bytes(variant.bytes)
            let lastModified = VariantStore.timestamp(variant.lastModified)
            plain = PreparedRepresentation(VariantStore.representation(
                body: body, contentType: variant.contentType, etag: variant.etag, lastModified: lastModified,
                xCache: Tier.memory.rawValue, timing: VariantStore.hitTiming(.memory), vary: false, cacheControl: cacheControl))
            varying = PreparedRepresentation(VariantStore.representation(
                body: body, contentType: variant.contentType, etag: variant.etag, lastModified: lastModified,
                xCache: Tier.memory.rawValue, timing: VariantStore.hitTiming(.memory), vary: true, cacheControl: cacheControl))
        }

        var cost: Int { variant.cost + plain.headBytes + varying.headBytes }
    }

    /// A hit, ready to answer any request for it.
    enum Hit {
        case memory(PreparedRepresentation)
        case disk(Representation)

        var tier: Tier {
            switch self {
            case .memory: .memory
            case .disk: .disk
            }
        }

        func response(to request: HTTPRequest) -> HTTPResponse {
            switch self {
            case .memory(let prepared): prepared.response(to: request)
            case .disk(let representation): representation.response(to: request)
            }
        }
    }

    let memory: MemoryCache<MemoryVariant>
    let disk: DiskCache?
    private let cacheControl: String

    init(memoryBytes: Int, disk: DiskCache?, cacheControl: String) {
        self.memory = MemoryCache(capacityBytes: memoryBytes)
        self.disk = disk
        self.cacheControl = cacheControl
    }

    func lookup(_ key: CacheKey, vary: Bool) -> Hit? {
        if let found = memory.get(key) {
            return .memory(vary ? found.varying : found.plain)
        }
        guard let found = disk?.lookup(key) else { return nil }
        if let variant = found.variant { promote(key, variant) }
        // Straight from the verified entry file (sendfile), whether or not memory kept a copy.
        return .disk(Self.representation(body: .file(found.file, offset: found.bodyOffset, count: found.bodyLength),
                                         contentType: found.contentType, etag: found.etag,
                                         lastModified: Self.timestamp(found.lastModified), xCache: Tier.disk.rawValue,
                                         timing: Self.hitTiming(.disk), vary: vary, cacheControl: cacheControl))
    }

    /// The variant itself from either tier (a disk hit is promoted), for sources that need its bytes.
    func variant(_ key: CacheKey) -> CachedVariant? {
        if let found = memory.get(key) { return found.variant }
        guard let variant = disk?.get(key) else { return nil }
        promote(key, variant)
        return variant
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
        let entry = MemoryVariant(variant, cacheControl: cacheControl)
        memory.put(key, entry, cost: entry.cost)
    }

    /// A variant's response fields: Cache-Control, Vary when the format was negotiated,
    /// X-Cache and Server-Timing, then the validators.
    static func representation(body: ResponseBody, contentType: String, etag: String, lastModified: Timestamp?,
                               xCache: String, timing: String, vary: Bool, cacheControl: String) -> Representation {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", cacheControl)
        if vary { headers.add("Vary", "Accept") }
        headers.add("X-Cache", xCache)
        headers.add("Server-Timing", timing)
        return Representation(contentType: contentType, body: body, etag: EntityTag(etag),
                              lastModified: lastModified, headers: headers)
    }

    /// Hits name their tier; a lookup's few microseconds are not worth a `dur`.
    static func hitTiming(_ tier: Tier) -> String { "cache;desc=\(tier.rawValue)" }

    /// The variant's Last-Modified: its source's, or none when the source had none (0).
    static func timestamp(_ seconds: Int) -> Timestamp? { seconds > 0 ? Timestamp(seconds: seconds) : nil }
}
