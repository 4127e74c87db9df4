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

    static func decode(_ s: Substring) -> String? {
        guard let bytes = LibraryPath.percentDecode(Substring(s.replacingOccurrences(of: "+", with: " "))) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
