import Foundation

/// What the link says about a transfer when it ends (its last event delivered, or cancelled).
struct LinkTransferReport: Sendable {
    let url: URL
    /// Body bytes that crossed the link.
    let bytes: Int
    let statusCode: Int?
    /// `N` of the request's `Range: bytes=N-`: the bytes a resume did not fetch again.
    let rangeStart: Int?
    /// The body arrived whole; false when the transfer was cancelled or failed.
    let completed: Bool
}
