import CVideoShim

/// Why a video could not be read. The server will map each to its problem (415, 422).
public enum VideoError: Error, Equatable, Sendable {
    /// No container FFmpeg reads, or no video stream in it.
    case notVideo(String)
    /// A codec without a decoder here.
    case unsupported(String)
    /// Frames over the pixel limit.
    case tooLarge(String)
    /// Nothing could be decoded within the limits (truncated, corrupt, endless).
    case broken(String)

    init(_ status: tv_video_status, message: String) {
        switch status {
        case TV_VIDEO_NOT_VIDEO: self = .notVideo(message)
        case TV_VIDEO_UNSUPPORTED: self = .unsupported(message)
        case TV_VIDEO_TOO_LARGE: self = .tooLarge(message)
        case TV_VIDEO_NO_MEMORY: self = .broken("out of memory")
        default: self = .broken(message)
        }
    }
}
