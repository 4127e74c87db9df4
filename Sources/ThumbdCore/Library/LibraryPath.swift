import WireCoding

/// A validated path of an image inside the library: relative, canonical, no `..`, no
/// hidden segments, no NUL. Built from the percent-encoded path of a request, decoded once.
public struct LibraryPath: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public var description: String { value }

    public enum Problem: Error, Equatable, Sendable {
        /// The encoding itself is broken: a bad request.
        case malformedEncoding
        /// A well-formed path thumbd refuses to look up: answered like a missing file.
        case refused(String)
    }

    public init(encoded: Substring) throws(Problem) {
        let text: String
        if encoded.utf8.contains(UInt8(ascii: "%")) {
            guard let bytes = PercentCoding.decode(encoded) else { throw .malformedEncoding }
            guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .malformedEncoding }
            text = decoded
        } else {
            text = String(encoded)
        }
        try Self.check(text.utf8)
        value = text
    }

    /// A path already decoded (an S3 key once its prefix is taken off, a configuration or query value), checked the same way.
    public init(decoded text: String) throws(Problem) {
        try Self.check(text.utf8)
        value = text
    }

    /// One pass over the decoded bytes: no NUL, not absolute, no empty, dot or hidden segment.
    private static func check(_ bytes: String.UTF8View) throws(Problem) {
        guard !bytes.isEmpty else { throw .refused("empty path") }
        var segmentStart = true
        for c in bytes {
            if c == 0 { throw .refused("NUL in path") }
            if c == UInt8(ascii: "/") {
                if segmentStart { throw .refused(bytes.first == c ? "absolute path" : "empty path segment") }
                segmentStart = true
            } else {
                // Catches ".", ".." and every other name starting with a dot.
                if segmentStart && c == UInt8(ascii: ".") { throw .refused("dot or hidden segment") }
                segmentStart = false
            }
        }
        if segmentStart { throw .refused("empty path segment") }
    }
}
