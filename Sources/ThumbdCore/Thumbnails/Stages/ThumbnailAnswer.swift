import Cache

/// What the thumbnail service gives every request waiting for one thumbnail: domain facts
/// only; `ThumbnailPresenter` turns them into a response.
package enum ThumbnailAnswer: Sendable {
    case variant(VariantAnswer)
    case failed(ThumbnailFailure)
}

/// A variant (or an original served as it is), where it came from and the steps that got it.
package struct VariantAnswer: Sendable {
    package var variant: CachedVariant
    /// The tier it was found in; nil when made (or fetched) now.
    package var tier: CacheTier?
    package var steps: [WorkStep]

    package init(variant: CachedVariant, tier: CacheTier? = nil, steps: [WorkStep]) {
        self.variant = variant
        self.tier = tier
        self.steps = steps
    }
}
