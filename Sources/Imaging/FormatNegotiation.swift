import Foundation

/// `fm=auto`: the best format an `Accept` header allows (RFC 9110 §12.5.1, q-values and
/// wildcards; the most specific matching range decides, and q=0 means "not this").
public enum FormatNegotiation {
    public static func choose(accept: String?, hasAlpha: Bool) -> OutputFormat {
        let ranges = parse(accept ?? "")
        for candidate in [OutputFormat.avif, .webp] where quality(of: candidate, in: ranges) > 0 {
            return candidate
        }
        return hasAlpha ? .png : .jpeg
    }

    struct MediaRange: Equatable {
        var type: String
        var subtype: String
        var q: Double
    }

    static func parse(_ header: String) -> [MediaRange] {
        header.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
            guard let mediaType = parts.first else { return nil }
            let pieces = mediaType.split(separator: "/", maxSplits: 1)
            guard pieces.count == 2 else { return nil }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)).map { min(1, max(0, $0)) } ?? 1
            }
            return MediaRange(type: String(pieces[0]), subtype: String(pieces[1]), q: q)
        }
    }

    static func quality(of format: OutputFormat, in ranges: [MediaRange]) -> Double {
        let parts = format.mediaType.split(separator: "/")
        let type = String(parts[0]), subtype = String(parts[1])
        var best: (specificity: Int, q: Double)?
        for range in ranges {
            let specificity: Int
            if range.type == type && range.subtype == subtype { specificity = 2 }
            else if range.type == type && range.subtype == "*" { specificity = 1 }
            else if range.type == "*" && range.subtype == "*" { specificity = 0 }
            else { continue }
            if best == nil || specificity > best!.specificity { best = (specificity, range.q) }
        }
        return best?.q ?? 0
    }
}
