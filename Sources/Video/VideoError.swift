import CVideoShim

/// Why a video could not be read. The server maps each to its problem (415, 422, 502, 503).
public enum VideoError: Error, Equatable, Sendable {
    /// No container FFmpeg reads, or no video stream in it.
    case notVideo(String)
    /// A codec without a decoder here.
    case unsupported(String)
    /// Frames over the pixel limit.
    case tooLarge(String)
    /// A duration over the limit.
    case tooLong(String)
    /// Nothing could be decoded within the limits (truncated, corrupt, endless).
    case broken(String)
    /// The decode took longer than its time limit.
    case timedOut(String)
    /// The bytes could not be read (the store failed, the file went).
    case readFailed(String)
    /// FFmpeg could not allocate: the server's condition, not the video's.
    case outOfMemory

    init(_ status: vd_status, message: String) {
        switch status {
        case VD_NOT_VIDEO: self = .notVideo(message)
        case VD_UNSUPPORTED: self = .unsupported(message)
        case VD_TOO_LARGE: self = .tooLarge(message)
        case VD_TOO_LONG: self = .tooLong(message)
        case VD_TIMED_OUT: self = .timedOut(message)
        case VD_READ_FAILED: self = .readFailed(message)
        case VD_NO_MEMORY: self = .outOfMemory
        default: self = .broken(message)
        }
    }

    /// What it says, for a problem's detail.
    public var message: String {
        switch self {
        case .notVideo(let m), .unsupported(let m), .tooLarge(let m), .tooLong(let m), .broken(let m), .timedOut(let m),
             .readFailed(let m): m
        case .outOfMemory: "out of memory while decoding the video"
        }
    }
}
