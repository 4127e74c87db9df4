import Foundation
import Imaging
import ThumbHash

/// What an app wants to know of an image before it downloads anything, and what the listing
/// and the gallery show: its size after orientation, format, alpha, frames, and a
/// placeholder (a ThumbHash and an average colour) to paint until the image arrives, and who
/// made it (the Picsum routes' `author`).
/// Computed once per file version (it decodes a 100-px preview).
struct ImageFacts: Sendable, Equatable {
    var width: Int
    var height: Int
    /// EXIF orientation as stored, 1...8.
    var orientation: Int
    var format: ImageFormat
    var bytes: Int64
    var alpha: Bool
    var frames: Int
    /// ThumbHash bytes.
    var placeholder: [UInt8]
    /// `#rrggbb`.
    var color: String
    /// EXIF Artist, else XMP `dc:creator`; empty when the image names nobody.
    var author: String

    /// Reads the facts of encoded bytes. Decodes a small preview: a worker thread calls it.
    static func read(_ data: [UInt8], format: ImageFormat, bytes: Int64) throws(ImagingError) -> ImageFacts {
        let header = try ImageHeader.read(data)
        let preview = try ImagePreview.make(data, maxSide: 100)
        let hash = ThumbHash.encode(width: preview.width, height: preview.height, rgba: preview.rgba)
        let (width, height) = header.orientedSize
        return ImageFacts(width: width, height: height, orientation: header.orientation, format: format, bytes: bytes,
                          alpha: header.hasAlpha, frames: header.pages, placeholder: hash, color: preview.averageColor,
                          author: ImageAuthor.read(data))
    }

    /// A PNG of the decoded hash (32 px on its longer side), base64 in a `data:` URI; empty
    /// when it cannot be rendered.
    static func dataURI(rendering hash: [UInt8]) -> String {
        guard let decoded = ThumbHash.decode(hash),
              let png = try? ImageSynthesis.image(width: decoded.width, height: decoded.height, bands: 4, pixels: decoded.rgba)
                  .encode(.png)
        else { return "" }
        return "data:image/png;base64," + Data(png).base64EncodedString()
    }

    var placeholderBase64: String { Data(placeholder).base64EncodedString() }
}
