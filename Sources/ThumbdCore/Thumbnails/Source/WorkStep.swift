import Imaging

/// A step the service ran to answer, with its duration in seconds (what `Server-Timing`
/// reports). A hit ran none: its tier says where it was found.
package enum WorkStep: Sendable, Equatable {
    /// A library file read.
    case read(Double)
    /// A remote original fetched or revalidated (the origin was asked).
    case fetch(Double)
    /// A remote original used from a cache tier without asking the origin.
    case original(CacheTier, Double)
    /// A video's frames decoded (FFmpeg) into the still its thumbnails are made from.
    case frame(Double)
    /// The variant made by libvips.
    case transform(Double)
    /// The quality `q=auto` chose for it (the encodings are part of `transform`'s time).
    case autoQuality(QualitySearch.Choice)
}
