import Video

/// What a thumbnail may cost: its source, its output, a video's decode (`limits.*`).
package struct ThumbnailLimits: Sendable {
    /// Sources over this many bytes are refused (413).
    package var maxSourceBytes: Int
    /// Sources over this many pixels are refused (422) from their header alone, and so are
    /// outputs (every frame counted).
    package var maxSourcePixels: Int
    /// Outputs wider or taller (after resizing, rotation and padding) are refused (422)
    /// before anything is decoded.
    package var maxDimension: Int = .max
    /// Animations (`anim=1`) with more frames are refused (422).
    package var maxFrames: Int = .max
    /// `output.shared_decode`: misses of one source queued together made from one decode.
    /// Off by default: their bytes (and so their ETags) differ from the same sizes made alone.
    package var sharesDecodes = false
    /// Videos lasting longer are refused (422) from their container's header.
    package var videoMaxDuration: Double = 4 * 3600
    /// Wall-clock seconds one still of a video may take to decode (422 past it).
    package var videoMaxDecodeSeconds: Double = 20

    package init(maxSourceBytes: Int, maxSourcePixels: Int, maxDimension: Int = .max, maxFrames: Int = .max,
                 sharesDecodes: Bool = false, videoMaxDuration: Double = 4 * 3600, videoMaxDecodeSeconds: Double = 20) {
        self.maxSourceBytes = maxSourceBytes
        self.maxSourcePixels = maxSourcePixels
        self.maxDimension = maxDimension
        self.maxFrames = maxFrames
        self.sharesDecodes = sharesDecodes
        self.videoMaxDuration = videoMaxDuration
        self.videoMaxDecodeSeconds = videoMaxDecodeSeconds
    }

    /// What FFmpeg may spend on one still (and on a library video's facts).
    package var video: VideoDecoder.Limits {
        VideoDecoder.Limits(maxPixels: maxSourcePixels, maxDuration: videoMaxDuration, maxSeconds: videoMaxDecodeSeconds)
    }
}
