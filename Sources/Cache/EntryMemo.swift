import Locking
import Synchronization

/// A value made at most once per open cache entry by whoever serves it (thumbd keeps the
/// entry's prepared response head here) and dropped with the entry, so it can never outlive
/// the bytes it describes.
public final class EntryMemo: Sendable {
    private let slot = Locked<(any AnyObject & Sendable)?>(nil)

    public init() {}

    /// The value kept here; `make` runs the first time (or when a value of another type was kept).
    public func value<T: AnyObject & Sendable>(_ make: () -> T) -> T {
        slot.withLock { kept in
            if let value = kept as? T { return value }
            let value = make()
            kept = value
            return value
        }
    }
}
