/// The little XML S3 answers need read: listings and errors are flat elements without
/// attributes (but the root's namespace), so the text of an element is what lies between its
/// start and end tags; keys may hold any character, escaped as entities. Not a general parser.
package enum S3XML {
    /// The inner text of every `<name>` element, in order, entities decoded.
    package static func texts(_ name: String, in xml: String) -> [String] {
        elements(name, in: Substring(xml)).map { decoded($0) }
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
        elements(name, in: xml).first.map { decoded($0) }
    }

    /// Text with XML's five named entities and numeric character references replaced.
    package static func decoded(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&"), let semicolon = rest[amp...].firstIndex(of: ";") {
            out += rest[..<amp]
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "quot": out += "\""
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "apos": out += "'"
            default:
                if let scalar = characterReference(entity) { out.unicodeScalars.append(scalar) } else { out += rest[amp...semicolon] }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }

    /// `#65` or `#x41`.
    private static func characterReference(_ entity: Substring) -> Unicode.Scalar? {
        guard entity.first == "#" else { return nil }
        let digits = entity.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init)
    }
}
