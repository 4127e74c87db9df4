import HTTP
import ThumbdCore
import ThumbdProtocol

/// The URLs Picsum's JSON and `Link` fields carry: absolute, on the host the request named
/// (apps load `download_url` as it is), signed where signing is on. Trusting the request's
/// `Host` and `X-Forwarded-Proto` here is safe: the answers that carry these URLs are
/// `no-store`, so they go back only to the client that sent them. Without a usable `Host`
/// the URLs stay relative.
struct PicsumLinks: Sendable {
    /// `http://host:port`, or empty.
    let origin: String
    let signer: URLSigner?
    let images: ImageLinks

    init(for request: HTTPRequest, signer: URLSigner?, images: ImageLinks) {
        let scheme = request.headers[.xForwardedProto]?.lowercased() == "https" ? "https" : "http"
        origin = request.headers[.host].flatMap(Self.validHost).map { scheme + "://" + $0 } ?? ""
        self.signer = signer
        self.images = images
    }

    /// A host name or address with an optional port, nothing that could break a URL or a field.
    static func validHost(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 255, text.utf8.allSatisfy({ byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
        }) else { return nil }
        return text
    }

    /// `download_url`: `/id/{id}/{w}/{h}` at the image's own size, as Picsum writes it.
    func download(_ entry: PicsumCatalog.Entry) -> String {
        let target = "/id/\(entry.id)/\(entry.item.width)/\(entry.item.height)"
        return origin + (signer?.sign(target) ?? target)
    }

    /// `url`: the original, `/img/{path}`.
    func original(_ entry: PicsumCatalog.Entry) -> String { origin + images.url(entry.item.path) }

    func listPage(_ page: Int, limit: Int) -> String { origin + PicsumTarget.listPath + "?page=\(page)&limit=\(limit)" }
}
