import WireCoding

/// The little XML S3 answers need read: listings and errors are flat elements without
/// attributes (but the root's namespace), so the text of an element is what lies between its
/// start and end tags; keys may hold any character, escaped as entities. Not a general parser.
package enum S3XML {
    /// The inner text of every `<name>` element, in order, entities decoded.
    package static func texts(_ name: String, in xml: String) -> [String] {
        elements(name, in: Substring(xml)).map { MarkupText.unescaped($0) }
    }

    /// The raw inner XML of every `<name>` element, in order (elements of one name do not nest
    /// in S3's answers).
    package static func elements(_ name: String, in xml: Substring) -> [Substring] {
        let open = "<" + name + ">", close = "</" + name + ">"
        var found: [Substring] = []
        var rest = xml
        while let start = rest.range(of: open) {
            guard let end = rest[start.upperBound...].range(of: close) else { break }
            found.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The inner text of the first `<name>` in `xml`, decoded.
    package static func text(_ name: String, in xml: Substring) -> String? {
        elements(name, in: xml).first.map { MarkupText.unescaped($0) }
    }
}
