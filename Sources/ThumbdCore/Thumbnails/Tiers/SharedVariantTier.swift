import Cache

/// A tier of thumbnails that every replica shares (the object store's: `SharedTier`). Slower
/// than the local tiers and allowed to fail: it is asked on a worker, never on an event loop.
package protocol SharedVariantTier: Sendable {
    /// The variant held for `key`, or nil (absent, unreadable, or the tier was skipped).
    /// `sourcePrefix` is what every key of the variant's source starts with.
    func variant(_ key: CacheKey, sourcePrefix: String) -> CachedVariant?
    /// Stores a made variant, in the background.
    func write(_ key: CacheKey, sourcePrefix: String, _ variant: CachedVariant)
}
