import ThumbdKit

/// What the user sees, as the simulation and the strategies report it: every cell's time on
/// screen and when its image came, wrong images, the return trip's cache hits, and the
/// full-screen views.
@MainActor
final class ScrollRecorder {
    private let clock: SimulationClock
    /// The script's phase now (set by the simulation each frame).
    var phase: ScriptPhase = .scrollDown

    /// Seconds from a cell coming on screen to its own image shown, for each cell filled.
    private(set) var latencies: [Double] = []
    private(set) var appearances = 0
    private(set) var neverFilled = 0
    /// Images assigned to a visible cell that represented another item.
    private(set) var wrongImages = 0
    private(set) var returnTrip = StrategyFigures.Outcomes()
    private(set) var fullScreenViews: [FullScreenView] = []

    init(clock: SimulationClock) {
        self.clock = clock
    }

    /// `cell` comes on screen for `item`, showing its placeholder.
    func cellAppeared(_ cell: GridCell, item: Int, at time: Double) {
        cell.item = item
        cell.shownItem = nil
        cell.isVisible = true
        cell.visibleSince = time
        cell.filled = false
        appearances += 1
    }

    /// `cell` leaves the screen (or the run ends while it is on it).
    func cellDisappeared(_ cell: GridCell) {
        if cell.isVisible, !cell.filled { neverFilled += 1 }
        cell.isVisible = false
    }

    /// An image for `item` is assigned to `cell`, whatever the cell represents by now.
    func cellReceived(_ cell: GridCell, item: Int, outcome: LoadOutcome) {
        cell.shownItem = item
        // In the reuse pool nobody sees it, and a reused cell shows its placeholder first.
        guard cell.isVisible else { return }
        guard item == cell.item else {
            wrongImages += 1
            return
        }
        guard !cell.filled else { return }
        cell.filled = true
        latencies.append(clock.now() - cell.visibleSince)
        if phase.isReturnTrip { returnTrip.count(outcome) }
    }

    func fullScreenOpened(_ view: FullScreenView) {
        fullScreenViews.append(view)
    }

    /// The view's image arrived: shown if the view is still open (a closed one is gone).
    func fullScreenReceived(_ view: FullScreenView, outcome: LoadOutcome) {
        guard view.isOpen, view.shownAt == nil else { return }
        view.shownAt = clock.now()
        view.outcome = outcome
    }
}
