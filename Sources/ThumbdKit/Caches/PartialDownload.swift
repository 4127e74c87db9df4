import Foundation

/// The bytes of a transfer that stopped before its end, with what a resume needs: the
/// validator for `If-Range` and the complete length the rest must add up to.
struct PartialDownload: Sendable, Equatable {
    struct Info: Codable, Sendable, Equatable {
        /// Strong ETag (weak ones cannot guard a range).
        var etag: String?
        var lastModified: String?
        var completeLength: Int
    }

    var key: String
    var info: Info
    var data: Data

    /// The `If-Range` value: the strong ETag, else the exact Last-Modified date.
    var ifRange: String? { info.etag ?? info.lastModified }
}
