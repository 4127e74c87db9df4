import Clocks
import CurlShim
import Foundation
import WireCoding

/// Fetches one image from an origin: only http and https, only allowed hosts, every redirect
/// checked again (host and scheme) up to a limit, every connection's address checked after
/// DNS, timeouts for connecting and for the whole fetch, and a byte limit enforced while
/// the body streams. Blocking: call it from a worker thread.
public struct OriginFetcher: Sendable {
    public let allow: OriginAllowList
    public let allowPrivate: Bool
    public let maxRedirects: Int
    public let connectTimeout: Double
    public let totalTimeout: Double
    /// Bytes a second a body must keep over any 5 s once the answer began (`origins.min_rate`).
    public let minRate: Int
    public let maxBytes: Int
    /// Measures the whole fetch's deadline.
    public let clock: any MonotonicClock

    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
        public var etag: String?
        public var lastModified: String?
        public var contentType: String?
        /// A 206's `Content-Range`.
        public var contentRange: String?

        package init(status: Int, body: [UInt8], etag: String? = nil, lastModified: String? = nil, contentType: String? = nil,
                     contentRange: String? = nil) {
            self.status = status
            self.body = body
            self.etag = etag
            self.lastModified = lastModified
            self.contentType = contentType
            self.contentRange = contentRange
        }

        /// A 206's `Content-Range`, read.
        public var range: ContentRange? { contentRange.flatMap(ContentRange.init(parsing:)) }
    }

    public enum Failure: Error, Equatable, Sendable {
        case badURL(String)
        case notAllowed(String)
        case blockedAddress(String)
        case timeout
        /// The body came slower than `minRate`: `bytes` in the last `seconds`.
        case tooSlow(bytes: Int64, seconds: Double)
        case tooLarge
        case connect(String)
        case tooManyRedirects
        case status(Int)
    }

    private static let started: Bool = tf_global_init() == 0

    public init(allow: OriginAllowList, allowPrivate: Bool, maxRedirects: Int, connectTimeout: Double, totalTimeout: Double,
                minRate: Int = 16 << 10, maxBytes: Int, clock: any MonotonicClock = SystemClock()) {
        self.allow = allow
        self.allowPrivate = allowPrivate
        self.maxRedirects = maxRedirects
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.minRate = minRate
        self.maxBytes = maxBytes
        self.clock = clock
    }

    /// The host of an absolute http(s) URL, or why it is not one.
    public static func host(of url: String) throws(Failure) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw .badURL("url must be an absolute http or https URL") }
        return host
    }

    /// The URL with the dots that end its host removed: `127.0.0.1.` is the address itself and
    /// `localhost.` is localhost, so neither is sent to DNS (where a resolver could answer
    /// anything); the connect-time address check then judges the address as usual.
    package static func withoutTrailingDots(_ url: String) -> String {
        guard var components = URLComponents(string: url), let host = components.percentEncodedHost, host.hasSuffix(".")
        else { return url }
        var trimmed = Substring(host)
        while trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty else { return url }
        components.percentEncodedHost = String(trimmed)
        return components.string ?? url
    }

    /// 200 with the body, or 304 when the validators still hold; with `range` ("bytes=A-B"),
    /// also 206 with that part; anything else throws.
    /// `bodyLimit`: bytes the body may have instead of `maxBytes` (a ranged read's block).
    /// `answered` is told when an answer's status line came (the last hop's, and every one before).
    public func fetch(_ url: String, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, range: String? = nil,
                      bodyLimit: Int? = nil, answered: () -> Void = {}) throws(Failure) -> Response {
        _ = Self.started
        let deadline = clock.now() + totalTimeout
        var current = url
        for _ in 0...maxRedirects {
            let host = try Self.host(of: current)
            guard allow.allows(host: host) else { throw .notAllowed(host) }
            let remaining = deadline - clock.now()
            guard remaining > 0 else { throw .timeout }
            let response = try once(Self.withoutTrailingDots(current), timeout: remaining, ifNoneMatch: ifNoneMatch,
                                    ifModifiedSince: ifModifiedSince, range: range, bodyLimit: bodyLimit ?? maxBytes, answered: answered)
            if [301, 302, 303, 307, 308].contains(response.status) {
                guard let location = response.location, let next = URL(string: location, relativeTo: URL(string: current))?.absoluteString
                else { throw .status(response.status) }
                current = next
                continue
            }
            if response.status == 200 || response.status == 304 || (range != nil && response.status == 206) { return response.value }
            throw .status(response.status)
        }
        throw .tooManyRedirects
    }

    private func once(_ url: String, timeout: Double, ifNoneMatch: String?, ifModifiedSince: String?, range: String?, bodyLimit: Int,
                      answered: () -> Void) throws(Failure) -> (status: Int, location: String?, value: Response) {
        var response = tf_response()
        let watch = TransferWatch(limits: TransferLimits(timeout: timeout, minRate: minRate), clock: clock)
        let check: @convention(c) (UnsafePointer<sockaddr>?, socklen_t, UnsafeMutableRawPointer?) -> Int32 =
            allowPrivate ? { _, _, _ in 1 } : { address, _, _ in Self.allowed(address) ? 1 : 0 }
        url.withCString { urlPointer in
            withOptionalCString(ifNoneMatch) { etag in
                withOptionalCString(ifModifiedSince) { since in
                    withOptionalCString(range) { range in
                        var request = tf_request(url: urlPointer, connect_timeout_ms: Int(min(connectTimeout, timeout) * 1000),
                                                 total_timeout_ms: max(1, Int(timeout * 1000)), max_bytes: bodyLimit,
                                                 if_none_match: etag, if_modified_since: since, range: range, allow_address: check,
                                                 context: nil, pace: TransferWatch.hook, pace_context: watch.context)
                        watch.telling(answered) { tf_fetch(&request, &response) }
                    }
                }
            }
        }
        defer { tf_response_free(&response) }
        func text<T>(_ field: T) -> String? {
            withUnsafeBytes(of: field) { raw in
                let s = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                return s.isEmpty ? nil : s
            }
        }
        switch response.error {
        case TF_OK: break
        case TF_TIMEOUT: throw .timeout
        case TF_CUT:
            if case .tooSlow(let bytes, let seconds) = watch.verdict { throw .tooSlow(bytes: bytes, seconds: seconds) }
            throw .timeout
        case TF_BLOCKED: throw .blockedAddress(url)
        case TF_TOO_LARGE: throw .tooLarge
        case TF_PROTOCOL: throw .badURL("only http and https are fetched")
        default: throw .connect(text(response.message) ?? "connection failed")
        }
        let body = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? []
        return (Int(response.status), text(response.location),
                Response(status: Int(response.status), body: body, etag: text(response.etag),
                         lastModified: text(response.last_modified), contentType: text(response.content_type),
                         contentRange: text(response.content_range)))
    }

    /// The connect-time check, on the address libcurl is about to connect to.
    package static func allowed(_ address: UnsafePointer<sockaddr>?) -> Bool {
        guard let address else { return false }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) }
            }
            return AddressPolicy.classify(ipv4: bytes) == .allowed
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) }
            }
            return AddressPolicy.classify(ipv6: bytes) == .allowed
        default:
            return false
        }
    }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
