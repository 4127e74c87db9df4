/// Text inside XML and HTML (XMP packets, S3's answers, the gallery page): the one escaper
/// and the one entity decoder, so every reader and writer of markup agrees.
public enum MarkupText {
    /// `text` safe in element content and in quoted attribute values of either quote:
    /// `&`, `<`, `>`, `"` and `'` become references.
    public static func escaped(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The longest reference read, `&` and `;` included (`&#x10FFFF;`): a `&` with no `;`
    /// within it is a literal ampersand, so a hostile text is scanned once, not once per `&`.
    public static let longestReference = 10

    /// `text` with XML's five named entities and character references (`&#65;`, `&#x41;`,
    /// `&#X41;`) replaced. Anything else, an unknown name, a reference to no character (a
    /// surrogate, past U+10FFFF) or one without its `;`, stays as written.
    public static func unescaped(_ text: some StringProtocol) -> String {
        let text = Substring(text)
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let window = rest[amp...].prefix(longestReference)
            guard let semicolon = window.firstIndex(of: ";"),
                  let replacement = reference(rest[rest.index(after: amp)..<semicolon])
            else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            out.unicodeScalars.append(contentsOf: replacement.unicodeScalars)
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }

    /// What a reference's name (between `&` and `;`) stands for, if anything.
    private static func reference(_ name: Substring) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.first == "#" else { return nil }
            let digits = name.dropFirst()
            let value = digits.first == "x" || digits.first == "X"
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
    }
}
