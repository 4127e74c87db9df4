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
