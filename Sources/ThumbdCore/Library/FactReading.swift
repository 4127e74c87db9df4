import Video

/// What reading a source's facts may use: the video limits a poster is decoded within, and
/// the renderers SVG and PDF are read by (nil: none, so they have no facts).
package struct FactReading: Sendable {
    package var video: VideoDecoder.Limits
    package var vectors: VectorSources?

    package init(video: VideoDecoder.Limits = LibraryIndex.defaultVideoLimits, vectors: VectorSources? = nil) {
        self.video = video
        self.vectors = vectors
    }
}
