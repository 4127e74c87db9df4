import Synchronization
import ThumbdCore

/// Whether the server is draining (stopping after SIGTERM).
final class DrainState: Sendable {
    private let draining = Atomic<Bool>(false)

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func begin() { draining.store(true, ordering: .relaxed) }
}
