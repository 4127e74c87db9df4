/// How thumbd divides the memory it may use (`limits.memory_bytes`, by default the
/// container's limit or the machine's memory) between its parts, decided once at start:
///
/// - the process at rest (code, libraries, thread stacks, buffers: `processBytes`), the
///   parsed-target memo (`targetMemoBytes`), the small originals kept in memory (limit/128,
///   at most 64 MiB) and the SVG and PDF renderers kept warm at rest (`rendererBytes` each;
///   a drawing's own memory is reserved from the transform budget while it is drawn);
/// - headroom for the allocator and the kernel's share (a twentieth of the limit), half of
///   which (at most 64 MiB) may hold libjpeg's large buffers between decodes
///   (`decoderScratch`);
/// - the memory tier (limit/16, at most 256 MiB) and the originals tier (limit/64, at most
///   64 MiB), unless configured;
/// - the transform budget: what is left, memory tier included, at most 1 GiB, unless
///   configured: the memory tier gives room back (evicting its least recently used entries)
///   while transforms need more than the rest. Under a 512 MiB limit the budget is 398 MiB,
///   so a 3200 x 2400 JPEG XL of a phone photo (about 400 MB) runs, with the tier down to
///   a few MiB meanwhile.
///
/// Pure: the limit comes in as `SystemMemory`. Configured values that do not fit together
/// are a `ConfigError` naming the keys.
import ThumbdCore

public struct MemoryPlan: Sendable, Equatable, CustomStringConvertible {
    /// The bound of the whole process, and what set it.
    public var limit: Int
    public var origin: String
    public var memoryTier: Int
    public var originalsTier: Int
    /// `limits.transform_memory_bytes`: 0 means no bound (configured so).
    public var transformBudget: Int
    /// With the budget sized from the limit: the room the transforms and the memory tier
    /// share. The tier holds at most `memoryTier` and gives back what transforms need past
    /// `sharedRoom - memoryTier`, so one large transform can run in a small container. nil
    /// when the budget is configured (the tier never yields).
    public var sharedRoom: Int?
    /// Library files small enough to be served from memory, kept up to this many bytes.
    public var smallOriginals: Int
    /// libjpeg's freed large buffers kept for the next decode (`DecoderScratch`), out of the
    /// headroom: unmapped whenever the transforms go idle.
    public var decoderScratch: Int

    /// The process at rest, measured: about 60 MB (57 MiB) with libvips loaded and the threads
    /// started, 50 MB of it code and libraries the kernel can drop and read again.
    static let processBytes = 56 << 20
    static let targetMemoBytes = 8 << 20
    /// A renderer at rest, measured: about 12 MiB of its own (anonymous) memory; its code and
    /// libraries are the server's own pages.
    static let rendererBytes = 12 << 20
    /// A budget below this makes only small thumbnails: the limit is too small to be useful.
    static let minimumBudget = 48 << 20
    static let maximumBudget = 1 << 30
    /// Where the system tells nothing (not Linux).
    static let assumedLimit = 4 << 30

    public static func make(config: ThumbdConfig, system: SystemMemory) throws(ConfigError) -> MemoryPlan {
        let (limit, origin) = config.limits.memoryBytes.map { ($0, "limits.memory_bytes") }
            ?? system.effective ?? (assumedLimit, "assumed: the system does not say")
        let smallOriginals = min(64 << 20, limit / 128)
        let memoryTier = config.cache.memoryBytes ?? min(256 << 20, limit / 16)
        let originalsTier = config.cache.originalsMemoryBytes ?? min(64 << 20, limit / 64)
        let fixed = processBytes + targetMemoBytes + smallOriginals + config.limits.vectorRenderers * rendererBytes + headroom(limit)
        let room = limit - fixed - memoryTier - originalsTier
        var plan = MemoryPlan(limit: limit, origin: origin, memoryTier: memoryTier, originalsTier: originalsTier,
                              transformBudget: 0, sharedRoom: nil, smallOriginals: smallOriginals,
                              decoderScratch: min(64 << 20, headroom(limit) / 2))
        func refusal(_ budget: String) -> ConfigError {
            var parts = ["\(mib(fixed)) for the process, its small caches, its warm renderers and headroom"]
            parts.append("cache.memory_bytes \(mib(memoryTier))" + (config.cache.memoryBytes == nil ? " (auto)" : ""))
            parts.append("cache.originals_memory_bytes \(mib(originalsTier))" + (config.cache.originalsMemoryBytes == nil ? " (auto)" : ""))
            parts.append("limits.transform_memory_bytes " + budget)
            return ConfigError(key: "limits.memory_bytes",
                               message: "\(mib(limit)) (\(origin)) cannot hold " + parts.joined(separator: " + ")
                                   + "; raise the limit or lower the keys set (auto sizes them from the limit)")
        }
        if let configured = config.limits.transformMemoryBytes {
            guard configured <= room || configured == 0, room >= 0 else { throw refusal(mib(configured)) }
            plan.transformBudget = configured
        } else {
            guard room >= minimumBudget else { throw refusal("at least \(mib(minimumBudget)) (auto)") }
            plan.sharedRoom = room + memoryTier
            plan.transformBudget = min(maximumBudget, room + memoryTier)
        }
        return plan
    }

    /// Room left for the allocator's slack and what the kernel charges the process.
    static func headroom(_ limit: Int) -> Int { limit / 20 }

    public var description: String {
        "limit \(Self.mib(limit)) (\(origin)): memory tier \(Self.mib(memoryTier)), originals tier \(Self.mib(originalsTier)), "
            + "transform budget \(transformBudget == 0 ? "off" : Self.mib(transformBudget))"
            + (sharedRoom != nil ? " (the memory tier yields to it)" : "") + ", small originals \(Self.mib(smallOriginals))"
            + ", decoder scratch \(Self.mib(decoderScratch)) (of the headroom)"
    }

    static func mib(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\((Double(bytes) / 1_048_576 * 10).rounded() / 10) MiB"
    }
}
