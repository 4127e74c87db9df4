/// Where the script is, for grouping what happened (the return trip's cache hits).
enum ScriptPhase: String, Sendable {
    case scrollDown, bottomPause, flingUp, topPause, downToMiddle, middlePause, fullScreen, settle

    /// Back over items seen before: the fling to the top and the way down to the middle.
    var isReturnTrip: Bool {
        switch self {
        case .flingUp, .topPause, .downToMiddle, .middlePause: true
        default: false
        }
    }
}

/// One step of the script.
enum ScriptStep: Sendable {
    /// Scroll at a constant speed (points per simulated second) to an offset.
    case scroll(to: Double, speed: Double, phase: ScriptPhase)
    case pause(seconds: Double, phase: ScriptPhase)
    case openFullScreen(item: Int, attempt: Int)
    /// Wait until the open full-screen view reaches `goal`, or `timeout` simulated seconds.
    case waitFullScreen(until: FullScreenGoal, timeout: Double)
    case closeFullScreen
}

enum FullScreenGoal: Sendable {
    /// This share of the body has arrived (or the image is already shown): the user closes it
    /// while it loads.
    case partlyLoaded(fraction: Double)
    case shown
}

/// What the simulated user does, the same for every strategy: down through the whole list,
/// a pause, a fling back to the top, a pause, down to the middle, a pause; then three images
/// of the middle row opened full screen and each closed while it loads, then opened again and
/// waited for; a last pause.
struct ScrollScript: Sendable {
    let steps: [ScriptStep]

    static func standard(layout: GridLayout, options: ScrollOptions) -> ScrollScript {
        let bottom = layout.maxOffset
        let middle = (bottom / 2).rounded()
        var steps: [ScriptStep] = [
            .scroll(to: bottom, speed: options.scrollSpeed, phase: .scrollDown),
            .pause(seconds: options.pauseSeconds, phase: .bottomPause),
            .scroll(to: 0, speed: options.flingSpeed, phase: .flingUp),
            .pause(seconds: options.pauseSeconds, phase: .topPause),
            .scroll(to: middle, speed: options.scrollSpeed, phase: .downToMiddle),
            .pause(seconds: options.pauseSeconds, phase: .middlePause),
        ]
        let tapped = layout.itemsNearCenter(at: middle, count: 3)
        for item in tapped {
            steps.append(.openFullScreen(item: item, attempt: 1))
            steps.append(.waitFullScreen(until: .partlyLoaded(fraction: 1.0 / 3), timeout: options.fullScreenTimeout / 2))
            steps.append(.closeFullScreen)
        }
        for item in tapped {
            steps.append(.openFullScreen(item: item, attempt: 2))
            steps.append(.waitFullScreen(until: .shown, timeout: options.fullScreenTimeout))
            steps.append(.closeFullScreen)
        }
        steps.append(.pause(seconds: options.pauseSeconds, phase: .settle))
        return ScrollScript(steps: steps)
    }

    /// One line for the table's header.
    static func describe(_ options: ScrollOptions) -> String {
        "down to the bottom at \(Int(options.scrollSpeed)) pt/s, pause \(options.pauseSeconds) s, "
            + "fling to the top at \(Int(options.flingSpeed)) pt/s, pause, down to the middle, pause; "
            + "3 images full screen, each closed a third loaded, then reopened"
    }
}
