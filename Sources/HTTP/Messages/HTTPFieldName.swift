/// A header field name, typed: every name the server reads or writes is a constant, spelt
/// once. It is only a view on the text `HTTPHeaders` stores (names are matched ignoring ASCII
/// case, kept as written).
public struct HTTPFieldName: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral text: String) { self.text = text }

    public var description: String { text }

    public static let accept: Self = "Accept"
    public static let accessControlAllowOrigin: Self = "Access-Control-Allow-Origin"
    public static let accessControlExposeHeaders: Self = "Access-Control-Expose-Headers"
    public static let acceptCH: Self = "Accept-CH"
    public static let acceptRanges: Self = "Accept-Ranges"
    public static let allow: Self = "Allow"
    public static let authorization: Self = "Authorization"
    public static let cacheControl: Self = "Cache-Control"
    public static let connection: Self = "Connection"
    public static let contentDisposition: Self = "Content-Disposition"
    public static let contentDPR: Self = "Content-DPR"
    public static let contentLength: Self = "Content-Length"
    public static let contentRange: Self = "Content-Range"
    public static let contentSecurityPolicy: Self = "Content-Security-Policy"
    public static let contentType: Self = "Content-Type"
    public static let date: Self = "Date"
    public static let etag: Self = "ETag"
    public static let host: Self = "Host"
    public static let ifMatch: Self = "If-Match"
    public static let ifModifiedSince: Self = "If-Modified-Since"
    public static let ifNoneMatch: Self = "If-None-Match"
    public static let ifRange: Self = "If-Range"
    public static let ifUnmodifiedSince: Self = "If-Unmodified-Since"
    public static let lastModified: Self = "Last-Modified"
    public static let link: Self = "Link"
    public static let location: Self = "Location"
    public static let range: Self = "Range"
    public static let retryAfter: Self = "Retry-After"
    public static let secCHDPR: Self = "Sec-CH-DPR"
    public static let secCHWidth: Self = "Sec-CH-Width"
    public static let serverTiming: Self = "Server-Timing"
    public static let transferEncoding: Self = "Transfer-Encoding"
    public static let vary: Self = "Vary"
    public static let wwwAuthenticate: Self = "WWW-Authenticate"
    public static let xForwardedFor: Self = "X-Forwarded-For"
    public static let xForwardedProto: Self = "X-Forwarded-Proto"
}
