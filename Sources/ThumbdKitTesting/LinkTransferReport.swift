import Foundation

/// What the link says about a transfer when it ends (its last event delivered, or cancelled).
public struct LinkTransferReport: Sendable {
    public let url: URL
    /// Body bytes that crossed the link.
    public let bytes: Int
    public let statusCode: Int?
    /// `N` of the request's `Range: bytes=N-`: the bytes a resume did not fetch again.
    public let rangeStart: Int?
    /// The body arrived whole; false when the transfer was cancelled or failed.
    public let completed: Bool
}
