import Foundation
import ThumbdKitTesting

/// One strategy's run of the script: a frame every 16 ms of wall time, each placing the grid
/// where the script says it is at that simulated moment, recycling cells like a collection
/// view (rows that scroll out go to a reuse pool; rows that scroll in take cells from it), and
/// opening and closing the full-screen views.
///
/// The scroll position is a function of simulated time, so a late frame (a busy machine) lands
/// the grid where it should be, only more coarsely.
@MainActor
final class ScrollSimulation {
    private static let frame = Duration.milliseconds(16)

    private let layout: GridLayout
    private let script: ScrollScript
    private let strategy: any LoadingStrategy
    private let recorder: ScrollRecorder
    private let ledger: TransferLedger
    private let link: SharedLinkTransport
    private let clock: SimulationClock

    private var allCells: [GridCell] = []
    private var visibleCells: [Int: GridCell] = [:]
    private var reusePool: [GridCell] = []
    private var shownRange: Range<Int> = 0..<0
    private var offset = 0.0
    private var direction = GridLayout.Direction.down
    private var lastPrefetchKey: (Range<Int>, GridLayout.Direction)?
    private var fullScreen: FullScreenView?

    private var stepIndex = 0
    /// When the current step began (simulated seconds), and the offset then.
    private var stepStart = 0.0
    private var stepStartOffset = 0.0
    /// Where the script puts the grid now.
    private var scriptOffset = 0.0

    init(layout: GridLayout, script: ScrollScript, strategy: any LoadingStrategy, recorder: ScrollRecorder,
         ledger: TransferLedger, link: SharedLinkTransport, clock: SimulationClock) {
        self.layout = layout
        self.script = script
        self.strategy = strategy
        self.recorder = recorder
        self.ledger = ledger
        self.link = link
        self.clock = clock
    }

    /// Plays the script; returns its length in simulated seconds. Loading is stopped at the end.
    func run() async -> Double {
        let start = clock.now()
        stepStart = start
        place(at: 0, now: start)
        while stepIndex < script.steps.count {
            try? await Task.sleep(for: Self.frame)
            let now = clock.now()
            advance(to: now)
            place(at: scriptOffset, now: now)
        }
        let end = clock.now()
        if let fullScreen { close(fullScreen) }
        // The cells on screen end their time there with the run.
        for cell in visibleCells.values { recorder.cellDisappeared(cell) }
        strategy.stop(cells: allCells)
        return end - start
    }

    // MARK: - The script

    /// Runs the steps due by `now`.
    private func advance(to now: Double) {
        while stepIndex < script.steps.count {
            switch script.steps[stepIndex] {
            case .scroll(let target, let speed, let phase):
                recorder.phase = phase
                let distance = abs(target - stepStartOffset)
                let duration = distance / speed
                guard now >= stepStart + duration else {
                    let travelled = speed * (now - stepStart)
                    scriptOffset = target >= stepStartOffset ? stepStartOffset + travelled : stepStartOffset - travelled
                    return
                }
                scriptOffset = target
                nextStep(startingAt: stepStart + duration)
            case .pause(let seconds, let phase):
                recorder.phase = phase
                guard now >= stepStart + seconds else { return }
                nextStep(startingAt: stepStart + seconds)
            case .openFullScreen(let item, let attempt):
                recorder.phase = .fullScreen
                open(item: item, attempt: attempt, now: now)
                nextStep(startingAt: now)
            case .waitFullScreen(let goal, let timeout):
                guard reached(goal) || now >= stepStart + timeout else { return }
                nextStep(startingAt: now)
            case .closeFullScreen:
                if let fullScreen { close(fullScreen) }
                nextStep(startingAt: now)
            }
        }
    }

    private func nextStep(startingAt time: Double) {
        stepIndex += 1
        stepStart = time
        stepStartOffset = scriptOffset
    }

    private func reached(_ goal: FullScreenGoal) -> Bool {
        guard let view = fullScreen else { return true }
        if view.shownAt != nil { return true }
        switch goal {
        case .shown:
            return false
        case .partlyLoaded(let fraction):
            guard let progress = link.progress(for: view.url), let expected = progress.expected, expected > 0 else { return false }
            return Double(progress.received) >= fraction * Double(expected)
        }
    }

    // MARK: - Full screen

    private func open(item: Int, attempt: Int, now: Double) {
        if let fullScreen { close(fullScreen) }
        let view = FullScreenView(item: item, url: strategy.fullScreenURL(for: item), attempt: attempt, openedAt: now)
        fullScreen = view
        recorder.fullScreenOpened(view)
        publishVisible(shownRange)
        strategy.open(view)
    }

    private func close(_ view: FullScreenView) {
        view.isOpen = false
        fullScreen = nil
        // Before the strategy cancels: its bytes are then judged as no longer in view.
        publishVisible(shownRange)
        strategy.close(view)
    }

    // MARK: - The grid

    /// Puts the grid at `newOffset`: cells for rows that left go to the pool, rows that came
    /// in get cells, and the strategy hears of it.
    private func place(at newOffset: Double, now: Double) {
        if newOffset != offset { direction = newOffset > offset ? .down : .up }
        offset = newOffset
        let range = layout.visibleItems(at: offset)
        if range != shownRange {
            publishVisible(range)
            for item in shownRange where !range.contains(item) {
                guard let cell = visibleCells.removeValue(forKey: item) else { continue }
                recorder.cellDisappeared(cell)
                strategy.didEndDisplaying(cell)
                reusePool.append(cell)
            }
            for item in range where visibleCells[item] == nil {
                let cell = dequeueCell()
                visibleCells[item] = cell
                recorder.cellAppeared(cell, item: item, at: now)
                strategy.willDisplay(cell, item: item)
            }
            shownRange = range
        }
        if lastPrefetchKey.map({ $0.0 != range || $0.1 != direction }) ?? true {
            lastPrefetchKey = (range, direction)
            strategy.visibleItemsChanged(visible: range, ahead: layout.itemsAhead(of: offset, direction: direction))
        }
    }

    /// The oldest cell of the pool, or a new one.
    private func dequeueCell() -> GridCell {
        if !reusePool.isEmpty { return reusePool.removeFirst() }
        let cell = GridCell()
        allCells.append(cell)
        strategy.prepare(cell)
        return cell
    }

    /// Tells the ledger what is in view: the cells of `range`, and the open full-screen view.
    private func publishVisible(_ range: Range<Int>) {
        var urls = Set(range.map { strategy.cellURL(for: $0) })
        if let fullScreen, fullScreen.isOpen { urls.insert(fullScreen.url) }
        ledger.setVisible(urls)
    }
}
