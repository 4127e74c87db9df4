import Imaging
import Video

/// A library source's content as its facts are read from it: an image's bytes, or a video's
/// reader (only the parts its poster needs are read).
package enum SourceContent {
    case image([UInt8], ImageFormat)
    case video(VideoReader, ImageFormat)

    /// A video's whole bytes are read through a reader over them; an image's are its own.
    package init(bytes: [UInt8], format: ImageFormat) {
        self = format.isVideo ? .video(VideoReader(bytes: bytes), format) : .image(bytes, format)
    }
}
