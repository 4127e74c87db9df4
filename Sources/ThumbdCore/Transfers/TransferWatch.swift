import Clocks
import CurlShim

/// One transfer's `TransferPace` as libcurl's pace hook: asked on the transfer's own thread
/// (nothing here is shared), it cuts the transfer once the pace says so and keeps why.
final class TransferWatch {
    private var pace: TransferPace
    private let clock: any MonotonicClock
    /// Why the transfer was cut, once it was.
    private(set) var verdict: TransferPace.Verdict = .going
    /// Told once, when the answer's status line came (the store answers; its body may still
    /// take its time): for the store's health. Set only while `telling` runs.
    private var headArrived: (() -> Void)?
    private var headTold = false

    init(limits: TransferLimits, clock: any MonotonicClock) {
        self.clock = clock
        pace = TransferPace(limits: limits, startedAt: clock.now())
    }

    var limits: TransferLimits { pace.limits }

    /// Runs `transfer` (the libcurl call this watch paces), telling `headArrived` when its
    /// answer's status line comes.
    func telling<T, E: Error>(_ headArrived: () -> Void, _ transfer: () throws(E) -> T) throws(E) -> T {
        try withoutActuallyEscaping(headArrived) { (headArrived) throws(E) -> T in
            self.headArrived = headArrived
            defer { self.headArrived = nil }
            return try withExtendedLifetime(self) { () throws(E) -> T in try transfer() }
        }
    }

    /// A streamed answer's head went on now.
    func answered() { pace.answered(at: clock.now()) }

    /// Runs `wait` (a push to a slow client) without counting its time against the store.
    func waitingOnClient<T>(_ wait: () -> T) -> T {
        let started = clock.now()
        defer { pace.waitedOnClient(clock.now() - started) }
        return wait()
    }

    /// What a cut transfer's failure says, for messages.
    var reason: String {
        switch verdict {
        case .going: "it was cut"
        case .tooSlow(let bytes, let seconds):
            "it sent \(bytes) bytes in \(Int(seconds.rounded())) s, under the minimum of \(limits.minRate) bytes a second"
        case .pastDeadline(let seconds): "it did not finish within \(Int(seconds.rounded())) s"
        }
    }

    static let hook: tf_pace_hook = { received, headSeen, context in
        guard let context else { return 0 }
        let watch = Unmanaged<TransferWatch>.fromOpaque(context).takeUnretainedValue()
        if headSeen != 0 && !watch.headTold {
            watch.headTold = true
            watch.headArrived?()
        }
        let verdict = watch.pace.check(received: received, headSeen: headSeen != 0, now: watch.clock.now())
        guard verdict != .going else { return 0 }
        watch.verdict = verdict
        return 1
    }

    /// The hook's context: valid while `self` is.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
