import Foundation

/// `fm=auto`: AVIF, then WebP, when the `Accept` header names them with a q-value above 0
/// (q=0 means "not this"); otherwise JPEG, or PNG for images with alpha.
///
/// Wildcards (`image/*`, `*/*`) do not count for AVIF and WebP: browsers without AVIF
/// support send `image/webp,*/*`, so a wildcard proves nothing (imgproxy and Cloudflare
/// decide the same way). JPEG and PNG are what every client decodes.
public enum FormatNegotiation {
    public static func choose(accept: String?, hasAlpha: Bool) -> OutputFormat {
        let ranges = parse(accept ?? "")
        for candidate in [OutputFormat.avif, .webp] where explicitQuality(of: candidate, in: ranges) > 0 {
            return candidate
        }
        return hasAlpha ? .png : .jpeg
    }

    /// The q-value of a range naming `format` exactly (0 when none does).
    static func explicitQuality(of format: OutputFormat, in ranges: [MediaRange]) -> Double {
        let parts = format.mediaType.split(separator: "/")
        return ranges.last { $0.type == parts[0] && $0.subtype == parts[1] }?.q ?? 0
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
}
