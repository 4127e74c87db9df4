/// HTTP methods this server distinguishes; anything else keeps its token.
public enum HTTPMethod: Sendable, Hashable {
    case get, head, other(String)

    init(token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        default: self = .other(token)
        }
    }

    public var token: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .other(let t): t
        }
    }
}

public enum HTTPVersion: Sendable, Hashable {
    case http10, http11

    public var text: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
}

/// A parsed request head. The body, if any, is never handed to handlers: this server only
/// serves GET and HEAD, so request content is discarded (small) or refused (large).
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request target as received (origin-form: path and query, still percent-encoded).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Length of the request content announced by Content-Length (0 when none).
    public var contentLength: Int
    /// True when Transfer-Encoding was sent: such content is refused.
    public var hasTransferEncoding: Bool

    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http11,
                headers: HTTPHeaders = HTTPHeaders(), contentLength: Int = 0, hasTransferEncoding: Bool = false) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.contentLength = contentLength
        self.hasTransferEncoding = hasTransferEncoding
    }

    /// The path part of the target (before `?`), still percent-encoded.
    public var path: Substring {
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return Substring(target)
    }

    /// The query part of the target (after `?`), or nil when there is no `?`.
    public var query: Substring? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.index(after: q)...]
    }

    /// True when any precondition (If-*) or Range field was sent: only such requests can get
    /// anything but the full representation.
    public var hasPreconditionsOrRange: Bool {
        for field in headers {
            let name = field.name.utf8
            guard name.count >= 5 else { continue }
            if name.count == 5 && field.name.equalsIgnoringASCIICase(HTTPFieldName.range.text) { return true }
            var i = name.makeIterator()
            if let a = i.next(), let b = i.next(), let c = i.next(), asciiLower(a) == 0x69, asciiLower(b) == 0x66, c == 0x2D {
                return true
            }
        }
        return false
    }

    /// Whether the client wants the connection kept open after this exchange.
    public var wantsKeepAlive: Bool {
        switch version {
        case .http11: !headers.hasToken("close", in: .connection)
        case .http10: headers.hasToken("keep-alive", in: .connection)
        }
    }
}
