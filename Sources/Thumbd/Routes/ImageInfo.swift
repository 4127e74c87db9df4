import Cache
import HTTP
import ThumbdCore
import ThumbdProtocol

/// The JSON of `/v1/images/{path}` and `/v1/info?url=`: an image's facts, the faces found in
/// it, its original's ETag and the URL to fetch it by, as one representation with a strong
/// ETag of its own.
enum ImageInfo {
    struct Body: Encodable {
        var id: String
        var width: Int
        var height: Int
        var orientation: Int
        var format: String
        var bytes: Int64
        var alpha: Bool
        var frames: Int
        /// A PDF's pages; absent for images and videos.
        var pages: Int?
        var placeholder: String
        var color: String
        var etag: String
        var url: String
        /// A video's facts; absent for images.
        var duration: Double?
        var codec: String?
        var frameRate: Double?
        /// Largest first; absent when the server finds no faces (`faces.detector: none`).
        var faces: [DetectedFace]?

        enum CodingKeys: String, CodingKey {
            case id, width, height, orientation, format, bytes, alpha, frames, pages, placeholder, color, etag, url, duration, codec
            case frameRate = "frame_rate"
            case faces
        }
    }

    static func representation(id: String, facts: ImageFacts, faces: [DetectedFace]?, originalETag: String, url: String,
                               lastModified: Timestamp?) -> Representation {
        let json = JSONBody.encode(Body(id: id, width: facts.width, height: facts.height, orientation: facts.orientation,
                                        format: facts.format.rawValue, bytes: facts.bytes, alpha: facts.alpha, frames: facts.frames,
                                        pages: facts.pages, placeholder: facts.placeholderBase64, color: facts.color, etag: originalETag, url: url,
                                        duration: facts.video?.duration, codec: facts.video?.codec, frameRate: facts.video?.frameRate,
                                        faces: faces))
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-cache")
        // The same facts and link give the same tag: derived from what the body says.
        return Representation(contentType: "application/json", body: .text(json), etag: EntityTag("i" + StableHash.hex128(json)),
                              lastModified: lastModified, headers: headers)
    }
}
