import Foundation
import Imaging
import ThumbHash
import Video

/// What an app wants to know of an image before it downloads anything, and what the listing
/// and the gallery show: its size after orientation, format, alpha, frames, and a
/// placeholder (a ThumbHash and an average colour) to paint until the image arrives, and who
/// made it (the Picsum routes' `author`).
/// Computed once per file version (it decodes a 100-px preview).
package struct ImageFacts: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// EXIF orientation as stored, 1...8.
    package var orientation: Int
    package var format: ImageFormat
    package var bytes: Int64
    package var alpha: Bool
    package var frames: Int
    /// A document's pages (a PDF's); nil for images and videos.
    package var pages: Int? = nil
    /// ThumbHash bytes.
    package var placeholder: [UInt8]
    /// `#rrggbb`.
    package var color: String
    /// EXIF Artist, else XMP `dc:creator`; empty when the image names nobody.
    package var author: String
    /// A video's own facts (the size above is its frames', upright); nil for an image.
    package var video: VideoFacts?

    package struct VideoFacts: Sendable, Equatable {
        /// Seconds; nil when the container does not say.
        package var duration: Double?
        /// FFmpeg's name: h264, hevc, vp9, av1...
        package var codec: String
        package var frameRate: Double?
    }

    /// Reads the facts of encoded bytes. Decodes a small preview: a worker thread calls it.
    package static func read(_ data: [UInt8], format: ImageFormat, bytes: Int64) throws(ImagingError) -> ImageFacts {
        let header = try ImageHeader.read(data)
        let preview = try ImagePreview.make(data, maxSide: 100)
        let hash = ThumbHash.encode(width: preview.width, height: preview.height, rgba: preview.rgba)
        let (width, height) = header.orientedSize
        return ImageFacts(width: width, height: height, orientation: header.orientation, format: format, bytes: bytes,
                          alpha: header.hasAlpha, frames: header.pages, placeholder: hash, color: preview.averageColor,
                          author: ImageAuthor.read(data))
    }

    /// The facts of a video: its container's and stream's, and a placeholder from its poster
    /// (the default frame, as `/img` gives it without `t`). A worker thread calls it.
    package static func read(video reader: VideoReader, format: ImageFormat, bytes: Int64,
                             limits: VideoDecoder.Limits) throws(ImagingOrVideoError) -> ImageFacts {
        let (still, info) = try VideoStills(limits: limits).still(.poster(nil), from: reader)
        let preview: ImagePreview
        do { preview = try ImagePreview.make(still, maxSide: 100) } catch { throw .imaging(error) }
        let turned = info.rotation == 90 || info.rotation == 270
        return ImageFacts(width: turned ? info.height : info.width, height: turned ? info.width : info.height, orientation: 1,
                          format: format, bytes: bytes, alpha: false, frames: 1,
                          placeholder: ThumbHash.encode(width: preview.width, height: preview.height, rgba: preview.rgba),
                          color: preview.averageColor, author: "",
                          video: VideoFacts(duration: info.duration, codec: info.codec, frameRate: info.frameRate))
    }

    /// The facts of an SVG or PDF: its first page's nominal size and its pages, read by a
    /// renderer, and a placeholder from a small drawing. A worker thread calls it.
    package static func read(vector data: [UInt8], format: ImageFormat, bytes: Int64,
                             vectors: VectorSources?) throws(ImagingError) -> ImageFacts {
        guard let vectors else { throw .unsupportedFormat }
        let (header, preview) = try vectors.facts(data)
        var facts = ImageFacts(width: header.width, height: header.height, orientation: 1, format: format, bytes: bytes,
                               alpha: header.hasAlpha, frames: 1,
                               placeholder: ThumbHash.encode(width: preview.width, height: preview.height, rgba: preview.rgba),
                               color: preview.averageColor, author: "")
        if format == .pdf { facts.pages = header.pages }
        return facts
    }

    /// The facts of what a catalog or a library read: an image's bytes or a video's reader.
    package static func read(_ content: SourceContent, bytes: Int64, reading: FactReading) throws -> ImageFacts {
        switch content {
        case .image(let data, let format) where format.isVector:
            return try read(vector: data, format: format, bytes: bytes, vectors: reading.vectors)
        case .image(let data, let format): return try read(data, format: format, bytes: bytes)
        case .video(let reader, let format):
            do { return try read(video: reader, format: format, bytes: bytes, limits: reading.video) } catch {
                switch error {
                case .video(let error): throw error
                case .imaging(let error): throw error
                }
            }
        }
    }

    /// A PNG of the decoded hash (32 px on its longer side), base64 in a `data:` URI; empty
    /// when it cannot be rendered.
    package static func dataURI(rendering hash: [UInt8]) -> String {
        guard let decoded = ThumbHash.decode(hash),
              let png = try? ImageSynthesis.image(width: decoded.width, height: decoded.height, bands: 4, pixels: decoded.rgba)
                  .encode(.png)
        else { return "" }
        return "data:image/png;base64," + Data(png).base64EncodedString()
    }

    package var placeholderBase64: String { Data(placeholder).base64EncodedString() }

    package init(width: Int, height: Int, orientation: Int, format: ImageFormat, bytes: Int64, alpha: Bool, frames: Int, placeholder: [UInt8], color: String, author: String,
                 video: VideoFacts? = nil) {
        self.width = width
        self.height = height
        self.orientation = orientation
        self.format = format
        self.bytes = bytes
        self.alpha = alpha
        self.frames = frames
        self.placeholder = placeholder
        self.color = color
        self.author = author
        self.video = video
    }
}
