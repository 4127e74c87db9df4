import Imaging
import Video

/// Why a thumbnail could not be had. Each case knows its HTTP problem (see Problems/).
package enum ThumbnailFailure: Error, Sendable {
    /// The source could not be read or fetched.
    case source(any Error & Sendable)
    case sourceTooLarge(bytes: Int, limit: Int)
    case imaging(ImagingError)
    /// A video's frame could not be had (FFmpeg, within the video limits).
    case video(VideoError)
    /// The transform's working-memory estimate alone is over the transform budget
    /// (`limits.transform_memory_bytes`): it is refused before anything is decoded.
    case workingMemory(needed: Int, limit: Int)
    /// The worker queue is full.
    case overloaded

    /// A source refused for its size, by the service or by its store.
    package var isTooLarge: Bool {
        switch self {
        case .sourceTooLarge: true
        case .source(let error as any SourceFailure): error.refusedForSize
        default: false
        }
    }
}
