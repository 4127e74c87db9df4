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
