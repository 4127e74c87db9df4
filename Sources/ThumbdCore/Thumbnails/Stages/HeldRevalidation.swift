import Dispatch
import Synchronization

/// Held thumbnails whose freshness has passed: their source asked again on a bounded pool of
/// its own (off the worker pool, so a held thumbnail never waits behind transforms), and the
/// held thumbnail answered once the source confirms its version, or at the latest
/// `heldAnswerBound` later, by a deadline on one serial queue.
final class HeldRevalidation: Sendable {
    enum Defaults {
        /// Sources asked at once; each waits at most its store's own timeout.
        static let workers = 4
        /// Revalidations waiting for a thread; past it, held thumbnails are answered as they are.
        static let queueLimit = 256
    }

    /// Held thumbnails answered before their source confirmed its version (it was slow, down,
    /// or the pool was full).
    let staleAnswers: Counter
    private let pool: WorkerPool
    private let deadlines = DispatchQueue(label: "thumbd.held-answer-bounds")

    init(staleAnswers: Counter) {
        self.staleAnswers = staleAnswers
        pool = WorkerPool(workers: Defaults.workers, queueLimit: Defaults.queueLimit, name: "revalidation", whenIdle: {})
    }

    /// Asks `source` again for `held`'s version: `answerHeld` once it confirms it (or fails, or
    /// the bound passes), `miss` with the new version when it changed. Exactly one is called.
    func revalidate(of source: some ThumbnailSource, held: SourceVersion, bound: Double, answerHeld: @escaping @Sendable () -> Void,
                    miss: @escaping @Sendable (SourceVersion) -> Void) {
        let answered = Atomic<Bool>(false)
        let first: @Sendable () -> Bool = { !answered.exchange(true, ordering: .acquiringAndReleasing) }
        let stale: @Sendable () -> Void = { [staleAnswers] in
            if first() {
                staleAnswers.increment()
                answerHeld()
            }
        }
        let accepted = pool.submit {
            // A HEAD where the source has one, else the load (a remote original's conditional
            // GET: a 304 keeps the version held).
            switch source.checkedVersion() ?? source.load().map(\.version) {
            case .success(let version) where version.tag == held.tag: if first() { answerHeld() }
            case .success(let version): if first() { miss(version) }
            case .failure: stale()
            }
        }
        guard accepted else { return stale() }
        deadlines.asyncAfter(deadline: .now() + bound, execute: stale)
    }

    func stop() {
        pool.stop()
    }
}
