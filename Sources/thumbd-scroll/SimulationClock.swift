/// The simulation's time: wall-clock time since the strategy started, multiplied by
/// `timeScale`. Every figure the tool reports (visible-to-shown times, full-screen times, the
/// script's steps) is in these simulated seconds, and the link converts its rate and latency
/// with the same factor, so `--time-scale 2` plays the same scroll on the same modelled link in
/// half the wall time. Only the server's own work (making thumbnails) does not scale.
struct SimulationClock: Sendable {
    let origin: ContinuousClock.Instant
    let timeScale: Double

    init(timeScale: Double) {
        origin = ContinuousClock.now
        self.timeScale = timeScale
    }

    /// Simulated seconds since the start.
    func now() -> Double {
        (ContinuousClock.now - origin) / .seconds(1) * timeScale
    }
}
