import Cache
import HTTP

/// The body and facts of a variant, whichever tier holds it: the bytes in memory, or the
/// region of a verified disk entry (sent with sendfile).
package struct VariantContent: Sendable {
    package var body: ResponseBody
    package var contentType: String
    package var etag: String
    /// Seconds since the epoch; 0: none.
    package var lastModified: Int

    package init(body: ResponseBody, contentType: String, etag: String, lastModified: Int) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    package init(_ variant: CachedVariant) {
        self.init(body: .bytes(variant.bytes), contentType: variant.contentType, etag: variant.etag,
                  lastModified: variant.lastModified)
    }
}
