import Foundation
import WireCoding

/// What the caches keep of a response besides its body: validators for revalidation and the
/// facts freshness is computed from (RFC 9111 §4.2).
///
/// Age is measured on the loader's own clock from when the response arrived, plus the `Age`
/// the response carried; the server's `Date` is not compared with the device clock, which may
/// be wrong by hours (a device ahead of the server would otherwise revalidate everything).
struct CachedResponseInfo: Codable, Sendable, Equatable {
    var etag: String?
    var lastModified: String?
    var contentLength: Int
    /// When the response (or the 304 that last refreshed it) arrived, on the loader's clock.
    var receivedAt: Date
    /// `Age` at arrival, in seconds.
    var initialAge: Double
    /// Freshness lifetime in seconds; nil when the response gave none (then every use revalidates).
    var lifetime: Double?
    var noCache: Bool

    init(response: TransportResponse, bodyLength: Int, receivedAt: Date) {
        etag = response.header("ETag")
        lastModified = response.header("Last-Modified")
        contentLength = bodyLength
        self.receivedAt = receivedAt
        initialAge = Self.age(of: response)
        let control = CacheControl(response.header("Cache-Control"))
        lifetime = Self.lifetime(of: response, control: control)
        noCache = control.noCache
    }

    /// Whether this response may be kept at all (`no-store` and `Vary: *` may not).
    static func isStorable(_ response: TransportResponse) -> Bool {
        guard response.statusCode == 200 || response.statusCode == 206 else { return false }
        if CacheControl(response.header("Cache-Control")).noStore { return false }
        if let vary = response.header("Vary"), vary.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return false
        }
        return true
    }

    func currentAge(at now: Date) -> Double {
        initialAge + max(0, now.timeIntervalSince(receivedAt))
    }

    /// Fresh: may be used without asking the server.
    func isFresh(at now: Date) -> Bool {
        guard !noCache, let lifetime else { return false }
        return currentAge(at: now) < lifetime
    }

    /// Whether a conditional request can be made for it.
    var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// After a 304: the stored fields updated with those the 304 carries (RFC 9111 §4.3.4),
    /// and the clock restarted.
    func refreshed(by notModified: TransportResponse, at now: Date) -> CachedResponseInfo {
        var copy = self
        copy.receivedAt = now
        copy.initialAge = Self.age(of: notModified)
        if let etag = notModified.header("ETag") { copy.etag = etag }
        if let lastModified = notModified.header("Last-Modified") { copy.lastModified = lastModified }
        if notModified.header("Cache-Control") != nil || notModified.header("Expires") != nil {
            let control = CacheControl(notModified.header("Cache-Control"))
            copy.lifetime = Self.lifetime(of: notModified, control: control)
            copy.noCache = control.noCache
        }
        return copy
    }

    private static func age(of response: TransportResponse) -> Double {
        response.header("Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
    }

    /// max-age, else Expires minus Date (a bad Expires means already expired), else none.
    private static func lifetime(of response: TransportResponse, control: CacheControl) -> Double? {
        if let maxAge = control.maxAge { return Double(maxAge) }
        guard let expiresText = response.header("Expires") else { return nil }
        guard let expires = HTTPDate.parse(expiresText) else { return 0 }
        guard let date = response.header("Date").flatMap({ HTTPDate.parse($0) }) else { return 0 }
        return Double(max(0, expires - date))
    }
}
