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
    /// The image's ThumbHash, base64 (`thumbnailPlaceholder` decodes it); nil from servers that
    /// send none.
    public let placeholder: String?
    /// The image's average colour, `#rrggbb`.
    public let color: String?

    public init(id: String, width: Int, height: Int, bytes: Int, format: String, url: String,
                placeholder: String? = nil, color: String? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.url = url
        self.placeholder = placeholder
        self.color = color
    }

    /// What to paint in the cell until the thumbnail arrives.
    public var thumbnailPlaceholder: ThumbnailPlaceholder? { placeholder.flatMap(ThumbnailPlaceholder.init(base64:)) }
}
