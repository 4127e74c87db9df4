import Synchronization

/// A shared event count (transforms run, ...), readable by tests and, later, metrics.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func increment() { value.add(1, ordering: .relaxed) }

    public var count: Int { value.load(ordering: .relaxed) }
}
