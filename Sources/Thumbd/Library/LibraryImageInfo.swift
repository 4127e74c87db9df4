import HTTP

/// What `/v1/images/{path}` says of one library image besides its path: its facts, and the
/// validators `/img/{path}` sends for its original.
struct LibraryImageInfo: Sendable {
    var facts: ImageFacts
    /// The original's ETag as `/img/{path}` sends it, quoted.
    var originalETag: String
    var lastModified: Timestamp?
}
