import Foundation
import ThumbdKit

/// One opening of an image full screen (a new view each time, as a pushed view controller is).
@MainActor
final class FullScreenView {
    let item: Int
    let url: URL
    /// 1: the first open, closed while loading; 2: opened again and waited for.
    let attempt: Int
    let openedAt: Double
    var isOpen = true
    var shownAt: Double?
    var outcome: LoadOutcome?
    /// ThumbdKit strategies: the view's binding to its image.
    var slot: ImageSlot<SimulatedImage>?

    init(item: Int, url: URL, attempt: Int, openedAt: Double) {
        self.item = item
        self.url = url
        self.attempt = attempt
        self.openedAt = openedAt
    }
}
