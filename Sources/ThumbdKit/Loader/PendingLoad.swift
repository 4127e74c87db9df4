import Foundation
import Locking

/// The slot's load task, behind a lock so the nonisolated `deinit` can reach it.
final class PendingLoad: Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)

    func replace(with new: Task<Void, Never>?, cancellingPrevious: Bool) {
        let previous = task.withLock { current -> Task<Void, Never>? in
            defer { current = new }
            return current
        }
        if cancellingPrevious { previous?.cancel() }
    }
}
