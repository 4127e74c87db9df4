/// A text that changes once a second (an HTTP Date field, a log time stamp), formatted at most
/// once per second by whoever owns it. Not thread-safe: each thread keeps its own.
import Clocks
import HTTP

public struct SecondText: Sendable {
    private var second = Int.min
    private var bytes: [UInt8] = []
    private let format: @Sendable (Int) -> String

    public init(_ format: @escaping @Sendable (Int) -> String) { self.format = format }

    /// The text for `second`, formatted again only when the second changed.
    public mutating func bytes(at second: Int) -> [UInt8] {
        if second != self.second {
            self.second = second
            bytes = Array(format(second).utf8)
        }
        return bytes
    }
}
