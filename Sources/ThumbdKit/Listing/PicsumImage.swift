import Foundation

/// One image of a Lorem Picsum listing or `info` answer, with Picsum's fields.
public struct PicsumImage: Sendable, Hashable, Codable {
    /// A number, as a string.
    public let id: String
    /// Empty when the image names nobody.
    public let author: String
    public let width: Int
    public let height: Int
    /// thumbd: the original (`/img/...`); picsum.photos: the photo's page.
    public let url: String
    /// The image at its own size, `/id/{id}/{width}/{height}` (signed by a server that signs).
    public let downloadURL: String

    enum CodingKeys: String, CodingKey {
        case id, author, width, height, url
        case downloadURL = "download_url"
    }

    public init(id: String, author: String, width: Int, height: Int, url: String, downloadURL: String) {
        self.id = id
        self.author = author
        self.width = width
        self.height = height
        self.url = url
        self.downloadURL = downloadURL
    }

    /// The image cropped from its centre to exactly `width` x `height`, on the host of
    /// `downloadURL`: `/id/{id}/{width}/{height}`. For servers that do not sign (a signing
    /// server's URLs come from it, signed).
    public func url(width: Int, height: Int) -> URL? {
        guard var parts = URLComponents(string: downloadURL) else { return nil }
        // Behind a proxy that adds a path prefix, the prefix stays.
        let prefix = parts.path.range(of: "/id/\(id)/", options: .backwards).map { String(parts.path[..<$0.lowerBound]) } ?? ""
        parts.path = prefix + "/id/\(id)/\(width)/\(height)"
        parts.query = nil
        return parts.url
    }
}
