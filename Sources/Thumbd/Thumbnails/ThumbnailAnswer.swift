import Cache

/// What the thumbnail service gives every request waiting for one thumbnail: domain facts
/// only; `ThumbnailPresenter` turns them into a response.
enum ThumbnailAnswer: Sendable {
    case variant(VariantAnswer)
    case failed(ThumbnailFailure)
}

/// A variant (or an original served as it is), where it came from and the steps that got it.
struct VariantAnswer: Sendable {
    var variant: CachedVariant
    /// The tier it was found in; nil when made (or fetched) now.
    var tier: CacheTier?
    var steps: [WorkStep]
}
