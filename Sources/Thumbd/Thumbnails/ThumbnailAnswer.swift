import Cache
import HTTP
import Imaging

/// What the thumbnail service gives every request waiting for one thumbnail.
enum ThumbnailAnswer: Sendable {
    /// The variant, with the steps that made or found it; `tier` is where it was found
    /// (nil: made now).
    case variant(CachedVariant, timing: ServerTiming, tier: VariantStore.Tier?)
    case failed(ThumbnailFailure)
}
