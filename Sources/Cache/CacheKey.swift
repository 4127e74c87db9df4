/// What identifies one cached variant: its full text (source identity and version plus the
/// normalized options) and a fixed-length hash of it for file names and map keys.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let hash: String

    public init(_ text: String) {
        self.text = text
        self.hash = StableHash.hex128(text)
    }

    public var description: String { text }
}

/// A cached response body with what is needed to serve it again exactly.
public struct CachedVariant: Sendable, Equatable {
    public var bytes: [UInt8]
    public var contentType: String
    /// The ETag's opaque part (without quotes).
    public var etag: String
    /// Source modification time, seconds since the epoch.
    public var lastModified: Int

    public init(bytes: [UInt8], contentType: String, etag: String, lastModified: Int) {
        self.bytes = bytes
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// What the variant costs a byte-bounded tier: its body and a little bookkeeping.
    public var cost: Int { bytes.count + contentType.utf8.count + etag.utf8.count + 128 }
}
