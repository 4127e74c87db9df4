import ThumbdProtocol

/// One image's facts (`GET /v1/images/{path}`, `GET /v1/info?url=`): what the listing says,
/// and its orientation, alpha, frames, the original's ETag and the faces the server found.
public struct ImageDetails: Sendable, Hashable, Codable {
    /// The library path, or the remote original's URL.
    public let id: String
    public let width: Int
    public let height: Int
    /// The EXIF orientation of the original, 1...8.
    public let orientation: Int
    public let format: String
    public let bytes: Int
    public let alpha: Bool
    public let frames: Int
    public let placeholder: String?
    public let color: String?
    /// The original's ETag, quoted.
    public let etag: String
    public let url: String
    /// The faces the server found, largest first, in the image's pixels after EXIF
    /// orientation (as `width` and `height` count), each with the detector's score (nil from
    /// the Haar cascades); nil from a server that finds none.
    public let faces: [DetectedFace]?

    public init(id: String, width: Int, height: Int, orientation: Int = 1, format: String, bytes: Int, alpha: Bool = false,
                frames: Int = 1, placeholder: String? = nil, color: String? = nil, etag: String, url: String, faces: [DetectedFace]? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.orientation = orientation
        self.format = format
        self.bytes = bytes
        self.alpha = alpha
        self.frames = frames
        self.placeholder = placeholder
        self.color = color
        self.etag = etag
        self.url = url
        self.faces = faces
    }

    /// What to paint in the cell until the thumbnail arrives.
    public var thumbnailPlaceholder: ThumbnailPlaceholder? { placeholder.flatMap(ThumbnailPlaceholder.init(base64:)) }
}
