import Foundation
import HTTP
import Imaging
import ThumbdCore
import ThumbdProtocol

/// `fm=auto`: AVIF, then JPEG XL, then WebP, when the `Accept` header names them with a q-value above 0
/// (q=0 means "not this"); otherwise the legacy choice (JPEG, or PNG for images with alpha),
/// which the transform makes from the image (`OutputFormat.universal`).
///
/// Wildcards (`image/*`, `*/*`) do not count for AVIF and WebP: browsers without AVIF
/// support send `image/webp,*/*`, so a wildcard proves nothing (imgproxy and Cloudflare
/// decide the same way). JPEG and PNG are what every client decodes.
public enum FormatNegotiation {
    public static func choose(accept: String?, hasAlpha: Bool) -> OutputFormat {
        modernFormat(accept: accept) ?? .universal(hasAlpha: hasAlpha)
    }

    /// The modern format `request` accepts when `transform` negotiates one; nil otherwise.
    static func negotiated(for transform: TransformRequest, _ request: HTTPRequest) -> OutputFormat? {
        transform.negotiatesFormat ? modernFormat(accept: request.headers[.accept]) : nil
    }

    /// AVIF, JPEG XL or WebP when `Accept` names them; nil when the answer is JPEG-or-PNG, which
    /// depends only on the source (alpha or not), so a cache key can be made before decoding.
    public static func modernFormat(accept: String?) -> OutputFormat? {
        let ranges = parse(accept ?? "")
        return [OutputFormat.avif, .jxl, .webp].first { explicitQuality(of: $0, in: ranges) > 0 }
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
