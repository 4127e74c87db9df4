import Cache
import Imaging

/// Originals fetched from elsewhere (remote origins, an S3 bucket: `FetchedOriginals`), kept for all the sizes asked of them:
/// a memory tier of their own and the disk tier shared with the variants. Each entry carries
/// its version and format, worked out once when it was fetched, never again on access.
package final class OriginalStore: Sendable {
    /// An original's bytes and what they are.
    package struct Original: Sendable {
        package var bytes: [UInt8]
        package var version: SourceVersion

        package init(bytes: [UInt8], version: SourceVersion) {
            self.bytes = bytes
            self.version = version
        }
    }

    package final class MemoryOriginal: Sendable {
        package let original: Original
        package let keyText: String

        package init(_ original: Original, keyText: String) {
            self.original = original
            self.keyText = keyText
        }

        package var cost: Int { original.bytes.count + keyText.utf8.count + 128 }
    }

    package let memory: MemoryCache<MemoryOriginal>
    private let disk: DiskCache?

    package init(memoryBytes: Int, disk: DiskCache?) {
        memory = MemoryCache(capacityBytes: memoryBytes)
        self.disk = disk
    }

    /// The key of `source`'s original in both tiers.
    package static func key(_ source: SourceName) -> CacheKey { CacheKey("original|" + source.text) }

    /// The original from either tier (a disk hit is promoted), with the tier it came from.
    package func get(_ source: SourceName) -> (original: Original, tier: CacheTier)? {
        let key = Self.key(source)
        if let found = memory.get(key) { return (found.original, .memory) }
        // An entry whose tag no build wrote is not an original of ours: a miss.
        guard let entry = disk?.get(key), let tag = VersionTag(text: entry.etag) else { return nil }
        // On disk the entry's ETag field holds the version tag and its content type the format.
        let format = ImageFormat(mediaType: entry.contentType)
        let original = Original(bytes: entry.bytes, version: SourceVersion(tag: tag, format: format,
                                                                          lastModified: entry.lastModified,
                                                                          byteCount: entry.bytes.count))
        promote(key, original)
        return (original, .disk)
    }

    package func put(_ source: SourceName, _ original: Original) {
        let key = Self.key(source)
        promote(key, original)
        disk?.put(key, CachedVariant(bytes: original.bytes, contentType: original.version.format?.mediaType ?? "application/octet-stream",
                                     etag: original.version.tag.text, lastModified: original.version.lastModified))
    }

    /// Removes the original of `source` from both tiers; returns how many entries went. Blocking.
    package func remove(_ source: SourceName) -> Int {
        let keyText = Self.key(source).text
        let fromMemory = memory.removeAll { $0.keyText == keyText }
        let fromDisk = disk?.removeAll(whereKey: { $0 == keyText }) ?? 0
        return fromMemory + fromDisk
    }

    private func promote(_ key: CacheKey, _ original: Original) {
        guard memory.capacityBytes > 0 else { return }
        let entry = MemoryOriginal(original, keyText: key.text)
        memory.put(key, entry, cost: entry.cost)
    }
}
