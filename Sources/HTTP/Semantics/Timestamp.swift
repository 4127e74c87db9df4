import WireCoding

/// A moment in whole seconds together with its HTTP-date text, formatted once.
public struct Timestamp: Sendable, Hashable {
    public let seconds: Int
    public let httpDate: String

    public init(seconds: Int) {
        self.seconds = seconds
        self.httpDate = HTTPDate.format(seconds)
    }
}
