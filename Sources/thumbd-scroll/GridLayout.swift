/// The grid's geometry: items in rows of `columns` square cells, a viewport of
/// `viewportPoints` scrolled to an offset (points from the top of the content).
struct GridLayout: Sendable {
    enum Direction: Sendable {
        case down, up
    }

    let itemCount: Int
    let columns: Int
    let cellPoints: Double
    let viewportPoints: Double

    var rowCount: Int { (itemCount + columns - 1) / columns }
    var contentHeight: Double { Double(rowCount) * cellPoints }
    /// The offset at the bottom of the content.
    var maxOffset: Double { max(0, contentHeight - viewportPoints) }
    /// The grid fills the screen's width.
    var widthPoints: Double { Double(columns) * cellPoints }
    /// Rows one screen holds (what prefetching looks ahead).
    var rowsPerScreen: Int { max(1, Int((viewportPoints / cellPoints).rounded(.up))) }

    /// Rows with any part inside the viewport.
    func visibleRows(at offset: Double) -> Range<Int> {
        guard rowCount > 0 else { return 0..<0 }
        let first = min(rowCount - 1, max(0, Int((offset / cellPoints).rounded(.down))))
        let end = min(rowCount, Int(((offset + viewportPoints) / cellPoints).rounded(.up)))
        return first..<max(first + 1, end)
    }

    func items(inRows rows: Range<Int>) -> Range<Int> {
        min(itemCount, rows.lowerBound * columns)..<min(itemCount, rows.upperBound * columns)
    }

    func visibleItems(at offset: Double) -> Range<Int> {
        items(inRows: visibleRows(at: offset))
    }

    /// The next screen of items past the viewport in `direction`, nearest first: what a
    /// collection view's prefetching asks for.
    func itemsAhead(of offset: Double, direction: Direction) -> [Int] {
        let visible = visibleRows(at: offset)
        switch direction {
        case .down:
            let rows = visible.upperBound..<min(rowCount, visible.upperBound + rowsPerScreen)
            return Array(items(inRows: rows))
        case .up:
            let rows = max(0, visible.lowerBound - rowsPerScreen)..<visible.lowerBound
            return Array(items(inRows: rows).reversed())
        }
    }

    /// `count` items from the row across the middle of the viewport: what a user taps.
    func itemsNearCenter(at offset: Double, count: Int) -> [Int] {
        guard itemCount > 0 else { return [] }
        let row = min(rowCount - 1, max(0, Int(((offset + viewportPoints / 2) / cellPoints).rounded(.down))))
        let start = max(0, min(itemCount - count, row * columns))
        return Array(start..<min(itemCount, start + count))
    }
}
