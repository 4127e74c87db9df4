extension LoadedSource {
    /// An original fetched from elsewhere (an origin, an S3 store) as a source: its step is
    /// `fetch` when it was just asked for, `original;desc=memory|disk` when a tier held it.
    package init(original: OriginalStore.Original, tier: CacheTier?, seconds: Double) {
        self.init(version: original.version, bytes: original.bytes, step: tier.map { .original($0, seconds) } ?? .fetch(seconds),
                  tier: tier)
    }
}
