import HTTP
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// Links to library images, for the listing and the gallery: the path percent-encoded, the
/// target signed when signing is on.
struct ImageLinks: Sendable {
    let signer: URLSigner?

    /// `/img/<path>[?query]`, signed when signing is on.
    func url(_ path: String, _ query: String = "") -> String {
        let target = ImageRoute.pathPrefix + PercentCoding.encode(path, keepingSlashes: true) + (query.isEmpty ? "" : "?" + query)
        return signer?.sign(target) ?? target
    }

    var signs: Bool { signer != nil }
}
