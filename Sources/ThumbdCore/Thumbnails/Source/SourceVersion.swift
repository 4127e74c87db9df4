import Imaging

/// One version of a source.
package struct SourceVersion: Sendable, Equatable {
    /// Names the version (the library file's size and mtime, the origin's validators): the
    /// same bytes give the same tag on any replica and after any restart.
    package var tag: VersionTag
    /// The format the bytes are in, when known.
    package var format: ImageFormat?
    /// Seconds since the epoch; 0 when the source has none.
    package var lastModified: Int
    /// The size, when known before reading.
    package var byteCount: Int?

    package init(tag: VersionTag, format: ImageFormat? = nil, lastModified: Int, byteCount: Int? = nil) {
        self.tag = tag
        self.format = format
        self.lastModified = lastModified
        self.byteCount = byteCount
    }

    /// The ETag of the store this version came from, when it names one: what a revalidation
    /// and a passed-through original carry.
    package var storeETag: String? { tag.entityTag }
}
