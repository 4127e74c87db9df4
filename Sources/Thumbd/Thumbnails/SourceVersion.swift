import Imaging

/// One version of a source.
struct SourceVersion: Sendable, Equatable {
    /// Names the version (the library file's size and mtime, the origin's validators): the
    /// same bytes give the same tag on any replica and after any restart.
    var tag: String
    /// The format the bytes are in, when known.
    var format: ImageFormat?
    /// Seconds since the epoch; 0 when the source has none.
    var lastModified: Int
    /// The size, when known before reading.
    var byteCount: Int?
}
