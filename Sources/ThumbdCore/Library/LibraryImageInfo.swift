import HTTP

/// What `/v1/images/{path}` says of one library image besides its path: its facts, and the
/// validators `/img/{path}` sends for its original.
package struct LibraryImageInfo: Sendable {
    package var facts: ImageFacts
    /// The original's ETag as `/img/{path}` sends it, quoted.
    package var originalETag: String
    package var lastModified: Timestamp?

    package init(facts: ImageFacts, originalETag: String, lastModified: Timestamp? = nil) {
        self.facts = facts
        self.originalETag = originalETag
        self.lastModified = lastModified
    }
}
