import Locking

/// Bytes one kind of work may hold at once: taken without waiting (refused when they would not
/// fit) and given back. What is refused is skipped, not queued: the copies of originals kept
/// while they stream, say, which are worth making only when memory allows.
package final class ByteAllowance: Sendable {
    package let limit: Int
    private let taken = Locked(0)

    package init(limit: Int) {
        self.limit = limit
    }

    /// True when `bytes` fit beside what is taken (they are then taken).
    package func take(_ bytes: Int) -> Bool {
        taken.withLock { taken in
            guard bytes >= 0, taken + bytes <= limit else { return false }
            taken += bytes
            return true
        }
    }

    package func giveBack(_ bytes: Int) {
        taken.withLock { $0 = max(0, $0 - bytes) }
    }
}
