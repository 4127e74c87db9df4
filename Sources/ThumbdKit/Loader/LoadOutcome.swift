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
