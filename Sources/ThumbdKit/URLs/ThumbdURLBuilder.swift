import Foundation
import ThumbdProtocol
import WireCoding

/// Builds thumbd URLs in the server's normal form: library images (`/img/{path}`), remote
/// images (`/proxy?url=...`), signed when a key is given.
///
/// Equal requests give equal URLs (see `ThumbnailOptions`), so the app's caches and the
/// server's hold one entry for each.
///
/// - Important: Pass `signingKey` only on a backend. A key shipped in an app can be extracted
///   and lets anyone sign any transform; apps should get signed URLs from their backend (or
///   from the listing, whose `url`s thumbd signs itself).
public struct ThumbdURLBuilder: Sendable {
    /// Scheme, host and port of the server (and a path prefix, if a reverse proxy strips one
    /// before thumbd sees the request: the signature covers the target from `/img` on).
    public let baseURL: URL
    public let signer: ThumbdURLSigner?

    public init(baseURL: URL, signingKey: String? = nil) {
        self.baseURL = baseURL
        self.signer = signingKey.flatMap { $0.isEmpty ? nil : ThumbdURLSigner(key: $0) }
    }

    /// `/img/{path}?{query}` (signed when a key is set). `path` is the library path, such as a
    /// listing item's `id`; it is percent-encoded like the server's own links. `expiresAt`: the
    /// server refuses the URL after that time (covered by the signature; the cached thumbnail
    /// is the same for every expiry).
    public func target(forImage path: String, options: ThumbnailOptions = .original, expiresAt: Date? = nil) -> String {
        let trimmed = String(path.drop { $0 == "/" })
        let query = options.query
        return finished("/img/" + PercentCoding.encode(trimmed, keepingSlashes: true) + (query.isEmpty ? "" : "?" + query), expiresAt)
    }

    /// `/proxy?url={remote}&{query}` (signed when a key is set).
    public func target(forRemote remoteURL: String, options: ThumbnailOptions = .original, expiresAt: Date? = nil) -> String {
        let query = options.query
        return finished("/proxy?url=" + PercentCoding.encode(remoteURL, keepingSlashes: false) + (query.isEmpty ? "" : "&" + query),
                        expiresAt)
    }

    /// `target` with its expiry, signed when a key is set.
    private func finished(_ target: String, _ expiresAt: Date?) -> String {
        let expires = expiresAt.map { Int($0.timeIntervalSince1970.rounded(.down)) }
        if let signer { return signer.sign(target, expires: expires) }
        guard let expires else { return target }
        return target + (target.contains("?") ? "&" : "?") + ThumbnailOptions.expiryParameter + "=\(expires)"
    }

    public func imageURL(_ path: String, options: ThumbnailOptions = .original, expiresAt: Date? = nil) -> URL {
        url(forTarget: target(forImage: path, options: options, expiresAt: expiresAt))
    }

    public func proxyURL(_ remoteURL: String, options: ThumbnailOptions = .original, expiresAt: Date? = nil) -> URL {
        url(forTarget: target(forRemote: remoteURL, options: options, expiresAt: expiresAt))
    }

    public func proxyURL(_ remoteURL: URL, options: ThumbnailOptions = .original, expiresAt: Date? = nil) -> URL {
        proxyURL(remoteURL.absoluteString, options: options, expiresAt: expiresAt)
    }

    /// The absolute URL of a target such as a listing item's `url`.
    public func url(forTarget target: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // Targets are fully percent-encoded ASCII, so this cannot fail for a valid base URL.
        guard let url = URL(string: base + target) else {
            preconditionFailure("ThumbdURLBuilder: \(base + target) is not a URL")
        }
        return url
    }
}
