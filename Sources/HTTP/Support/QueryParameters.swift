import WireCoding

/// The `name=value` pairs of a query string, percent-decoded, in order. Pure.
public struct QueryParameters: Sendable, Equatable {
    public var pairs: [(name: String, value: String)]

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.map(\.name) == rhs.pairs.map(\.name) && lhs.pairs.map(\.value) == rhs.pairs.map(\.value)
    }

    public enum Problem: Error, Equatable {
        case malformed(String)
    }

    /// Parses `a=1&b=2`; empty pieces (`a=1&&b=2`, a trailing `&`) are skipped; a piece with
    /// an empty name (`=1`) is malformed.
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
            // A value without a name (`=x`) is no parameter: refusing it keeps every 400 able to
            // name the parameter at fault (found by fuzzing).
            guard !name.isEmpty, let n = Self.decode(name), let v = Self.decode(value) else { throw .malformed(String(piece)) }
            pairs.append((name: n, value: v))
        }
    }

    public var isEmpty: Bool { pairs.isEmpty }

    public static let empty = QueryParameters(pairs: [])

    public init(pairs: [(name: String, value: String)]) { self.pairs = pairs }

    /// The value of `name` when it appears exactly once.
    public func single(_ name: String) -> String? {
        var found: String?
        for pair in pairs where pair.name == name {
            if found != nil { return nil }
            found = pair.value
        }
        return found
    }

    /// `a=1&b=2`, names and values percent-encoded.
    public var encoded: String {
        pairs.map { PercentCoding.encode($0.name, keepingSlashes: false) + "=" + PercentCoding.encode($0.value, keepingSlashes: false) }
            .joined(separator: "&")
    }

    /// One name or value: escapes decoded, literal `+` as space, valid UTF-8 or nil.
    static func decode(_ s: Substring) -> String? {
        // Most parameters are plain: no escapes, no '+'.
        if !s.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return String(s) }
        guard var bytes = PercentCoding.decode(s) else { return nil }
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
