/// One image of the library listing (`GET /v1/images`).
public struct ListedImage: Sendable, Hashable, Codable {
    /// The library path: what `ThumbdURLBuilder.imageURL(_:options:)` takes.
    public let id: String
    /// Pixels after EXIF rotation.
    public let width: Int
    public let height: Int
    public let bytes: Int
    public let format: String
    /// The original's target (`/img/...`), signed by the server when signing is on.
    public let url: String

    public init(id: String, width: Int, height: Int, bytes: Int, format: String, url: String) {
        self.id = id
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.url = url
    }
}
