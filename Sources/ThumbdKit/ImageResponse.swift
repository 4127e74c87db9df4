import Foundation

/// A loaded image and how it was obtained.
public struct ImageResponse<Image: Sendable>: Sendable {
    public let image: Image
    public let url: URL
    public let outcome: LoadOutcome
    /// Body bytes that came over the network for this load (0 for memory and disk hits and
    /// for a 304; only the rest for a resume). Loads that joined one transfer all report it.
    public let bytesReceived: Int

    public init(image: Image, url: URL, outcome: LoadOutcome, bytesReceived: Int) {
        self.image = image
        self.url = url
        self.outcome = outcome
        self.bytesReceived = bytesReceived
    }
}

/// Where an image came from.
public enum LoadOutcome: String, Sendable, CaseIterable {
    /// The memory tier, fresh: no request.
    case memory
    /// The disk tier, fresh: no request, one decode.
    case disk
    /// A full 200 response.
    case network
    /// A stale entry confirmed by a 304 (no body sent).
    case revalidated
    /// The kept bytes of a stopped transfer completed by a 206.
    case resumed
}

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

/// Why a load failed (besides `CancellationError` when the caller cancelled).
public enum ThumbdLoadError: Error, Sendable, Equatable {
    /// The server answered with this status (403 bad signature, 404, 503 overloaded, ...).
    case httpStatus(Int)
    /// The body ended before (or went past) its announced length.
    case lengthMismatch(expected: Int, received: Int)
    case invalidResponse(String)
    /// The app's decode function threw.
    case decodingFailed(String)
    /// The transport failed (connection refused, timed out, reset, ...).
    case transport(String)
}

/// Loader-wide counters, a snapshot (`ThumbdLoader.counters`).
public struct LoaderCounters: Sendable, Equatable {
    /// Calls to `load`.
    public var loads = 0
    public var memoryHits = 0
    public var diskHits = 0
    /// Complete 200 bodies.
    public var networkLoads = 0
    /// 304s that refreshed a stale entry.
    public var revalidations = 0
    /// 206s appended to kept bytes.
    public var resumes = 0
    /// Resumes the server answered with a range that did not fit: started over.
    public var restarts = 0
    /// Loads that joined a load already under way for the same URL.
    public var coalesced = 0
    /// HTTP requests sent.
    public var requestsSent = 0
    /// Transfers stopped because every load waiting for them was cancelled.
    public var transfersCancelled = 0
    public var failures = 0
    /// Body bytes received from the network, as they arrive.
    public var bytesReceived = 0
    /// Loads under way now (one per URL however many callers wait).
    public var loadsInFlight = 0

    public init() {}
}
