/// The `name=value` pairs of a query string, percent-decoded, in order. Pure.
public struct QueryParameters: Sendable, Equatable {
    public var pairs: [(name: String, value: String)]

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.map(\.name) == rhs.pairs.map(\.name) && lhs.pairs.map(\.value) == rhs.pairs.map(\.value)
    }

    public enum Problem: Error, Equatable {
        case malformed(String)
    }

    /// Parses `a=1&b=2`; empty pieces (`a=1&&b=2`, a trailing `&`) are skipped.
    /// `+` means space, as browsers encode forms.
    public init(parsing query: Substring?) throws(Problem) {
        pairs = []
        guard let query, !query.isEmpty else { return }
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring, value: Substring
            if let eq = piece.firstIndex(of: "=") {
                name = piece[..<eq]
                value = piece[piece.index(after: eq)...]
            } else {
                name = piece
                value = ""
            }
            guard let n = Self.decode(name), let v = Self.decode(value) else { throw .malformed(String(piece)) }
            pairs.append((name: n, value: v))
        }
    }

    public var isEmpty: Bool { pairs.isEmpty }

    public static let empty = QueryParameters(pairs: [])

    private init(pairs: [(name: String, value: String)]) { self.pairs = pairs }

    static func decode(_ s: Substring) -> String? {
        // Most parameters are plain: no escapes, no '+'.
        if !s.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return String(s) }
        guard var bytes = LibraryPath.percentDecode(s) else { return nil }
        // '+' is a space in a query, but "%2B" is a real plus: replace only literal ones.
        var literal = s.utf8.makeIterator()
        var i = 0
        while let c = literal.next() {
            if c == UInt8(ascii: "%") {
                _ = literal.next()
                _ = literal.next()
            } else if c == UInt8(ascii: "+") {
                bytes[i] = UInt8(ascii: " ")
            }
            i += 1
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
