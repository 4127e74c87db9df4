import Foundation

/// The `Cache-Control` directives a private (client) cache acts on (RFC 9111 §5.2.2).
struct CacheControl: Equatable, Sendable {
    /// Keep nothing: neither tier, nor a partial download.
    var noStore = false
    /// May be kept, but must be revalidated before each use.
    var noCache = false
    /// Seconds the response stays fresh.
    var maxAge: Int?

    init(_ field: String?) {
        guard let field else { return }
        for directive in field.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard let rawName = parts.first else { continue }
            let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
            var value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                value = String(quoted.dropFirst().dropLast())
            }
            switch name {
            case "no-store": noStore = true
            // `no-cache="field"` only restricts that field; treating it as plain no-cache is the safe reading.
            case "no-cache": noCache = true
            // must-revalidate needs nothing: a stale entry is never used unrevalidated here.
            case "max-age":
                // A malformed max-age makes the response stale (§4.2.1), never fresh forever.
                let seconds = value.flatMap { Int($0) }
                maxAge = min(maxAge ?? Int.max, max(0, seconds ?? 0))
            default: break
            }
        }
    }
}
