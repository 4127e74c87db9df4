/// A page with `{{name}}` slots, read once and filled in one pass: what a value holds is
/// never read as a slot, so a file named `{{grid}}` stays a name.
struct PageTemplate: Sendable {
    private enum Piece: Sendable {
        case text(String)
        case slot(String)
    }

    private let pieces: [Piece]
    /// The slots' names, in order.
    var slots: [String] {
        pieces.compactMap { if case .slot(let name) = $0 { name } else { nil } }
    }

    init(_ text: String) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            pieces.append(.text(String(rest[..<open.lowerBound])))
            pieces.append(.slot(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        pieces.append(.text(String(rest)))
        self.pieces = pieces
    }

    /// The page with each slot replaced by its value; a slot without one is left empty.
    func filled(_ values: [String: String]) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .slot(let name): out += values[name] ?? ""
            }
        }
        return out
    }
}
