import Foundation
import ThumbdKit

/// How a strategy fills the grid: the collection view's callbacks, as a simulated app gets them.
@MainActor
protocol LoadingStrategy: AnyObject {
    /// The URL a cell for `item` shows.
    func cellURL(for item: Int) -> URL
    /// The URL the full-screen view of `item` shows.
    func fullScreenURL(for item: Int) -> URL
    /// Once, when the grid makes a new cell.
    func prepare(_ cell: GridCell)
    /// `cell` comes on screen for `item` (as `cellForItemAt` + `willDisplay`).
    func willDisplay(_ cell: GridCell, item: Int)
    /// `cell` left the screen (`didEndDisplaying`).
    func didEndDisplaying(_ cell: GridCell)
    /// The items on screen and the next screen ahead in the scroll direction, nearest first.
    func visibleItemsChanged(visible: Range<Int>, ahead: [Int])
    func open(_ view: FullScreenView)
    func close(_ view: FullScreenView)
    /// The run is over: stop loading (`cells` are all the grid made).
    func stop(cells: [GridCell])
    /// After the figures are taken: let pending disk writes land before the folder goes.
    func finish()
    var transfersCancelled: Int { get }
    var failures: Int { get }
}
