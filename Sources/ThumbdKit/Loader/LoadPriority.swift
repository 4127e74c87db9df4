/// How urgently to load. Prefetches run `low`; a load that joins a transfer under way raises
/// its priority to the highest of those waiting for it.
public enum LoadPriority: Int, Sendable, Comparable, CaseIterable {
    case low, normal, high

    public static func < (lhs: LoadPriority, rhs: LoadPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `URLSessionTask.priority`: lowPriority, defaultPriority, highPriority.
    public var transferPriority: Float {
        switch self {
        case .low: 0.25
        case .normal: 0.5
        case .high: 0.75
        }
    }

    var taskPriority: TaskPriority {
        switch self {
        case .low: .utility
        case .normal: .medium
        case .high: .userInitiated
        }
    }
}
