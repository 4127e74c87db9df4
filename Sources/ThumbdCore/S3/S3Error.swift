/// Why the store could not give what was asked. Each case knows its HTTP problem (Problems/).
package enum S3Error: Error, Equatable, Sendable {
    /// No such key (404 NoSuchKey, or a HEAD's bare 404).
    case notFound
    /// The store refused thumbd: its credentials, the bucket, a permission (403, NoSuchBucket,
    /// other 4xx). A configuration problem; `code` is S3's error code (or `HTTP 4xx`).
    case refused(status: Int, code: String)
    /// The store cannot be reached or fails (connection refused, timeout, 5xx): what is cached
    /// is served meanwhile, and requests are tried again after a pause.
    case unavailable(String)
    /// The object passed `limits.max_source_bytes` while it streamed.
    case tooLarge(limit: Int)
    /// The object's bytes are no image format thumbd reads.
    case notAnImage
    /// The object changed between two requests made for one answer.
    case changed

    /// A refusal's status and S3's code, as messages name it: `403 AccessDenied`.
    package var refusalText: String {
        if case .refused(let status, let code) = self { return "\(status) \(code)" }
        return "\(self)"
    }

    /// The store answered no (its keys, the bucket's policy): the operator's to mend.
    package var isRefusal: Bool {
        if case .refused = self { return true }
        return false
    }

    package var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
