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
            guard let bytes = Self.percentDecode(encoded) else { throw .malformedEncoding }
            guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .malformedEncoding }
            text = decoded
        } else {
            text = String(encoded)
        }
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

    /// Decodes %XX escapes once; nil when an escape is malformed. `+` stays `+` in a path.
    static func percentDecode(_ s: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let c = it.next() {
            if c == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
                out.append(h << 4 | l)
            } else {
                out.append(c)
            }
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
