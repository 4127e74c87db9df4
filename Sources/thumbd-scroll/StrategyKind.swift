/// The ways of filling the grid that one run compares.
enum StrategyKind: String, Sendable, CaseIterable {
    /// Originals on one serial queue, as cells appear; never cancelled, no cache, assigned to
    /// whatever the cell shows when they arrive.
    case naive
    /// ThumbdKit (loader, a slot per cell, prefetching the next screen) fetching originals.
    case kitOriginals = "kit-originals"
    /// ThumbdKit fetching thumbnails at the cell's pixel size.
    case kit

    /// Whether it fetches the library's original files.
    var fetchesOriginals: Bool { self != .kit }
}
