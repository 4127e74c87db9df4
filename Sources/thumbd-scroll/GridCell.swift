import ThumbdKit

/// One reusable cell of the grid, like a `UICollectionViewCell`: it represents one item while
/// on screen, goes back to the reuse pool when its row scrolls out, and is handed the next item
/// that scrolls in.
@MainActor
final class GridCell {
    /// The item it represents (the last one, while in the pool).
    var item: Int?
    /// The item whose image it shows; nil: the placeholder. Another item than `item` while
    /// visible is the wrong-image bug.
    var shownItem: Int?
    var isVisible = false
    /// When it came on screen for `item` (simulated seconds).
    var visibleSince = 0.0
    /// Its own image has been shown since it came on screen.
    var filled = false
    /// ThumbdKit strategies: what binds the cell's item to its image.
    var slot: ImageSlot<SimulatedImage>?
}
