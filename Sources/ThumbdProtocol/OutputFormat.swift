/// Formats thumbd encodes, by the names `fm` takes.
public enum OutputFormat: String, Sendable, CaseIterable, Hashable {
    case jpeg, png, webp, avif, jxl, gif

    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
        case .gif: "image/gif"
        }
    }

    public var supportsAlpha: Bool { self != .jpeg }

    /// The quality of JPEG, WebP, AVIF and JPEG XL when nothing else says.
    public static let defaultQuality = 80

    /// libaom's effort for AVIF (0 fastest .. 9 smallest; `output.avif_effort`). 1 is its speed
    /// 8: on-the-fly latency, within 2x of WebP's time for thumbnails (bench/avif_effort.sh).
    public static let defaultAVIFEffort = 1
    public static let avifEfforts = 0...9

    /// What every client decodes: PNG when the image has alpha, JPEG otherwise.
    public static func universal(hasAlpha: Bool) -> OutputFormat { hasAlpha ? .png : .jpeg }

    /// Whether `q` means anything for this format (it is dropped from the options otherwise).
    public var usesQuality: Bool { self == .jpeg || self == .webp || self == .avif || self == .jxl }

    /// Whether `q=auto` can choose its quality: thumbd can decode its own output to measure it.
    /// Not JPEG XL, whose loader thumbd blocks (it reads no JPEG XL): its `q=auto` is the fixed
    /// default quality.
    public var measuresQuality: Bool { self == .jpeg || self == .webp || self == .avif }

    /// Whether `pr` means anything: progressive JPEG, interlaced PNG.
    public var usesProgressive: Bool { self == .jpeg || self == .png }

    /// Whether `anim` means anything: thumbd writes animations as WebP only.
    public var keepsFrames: Bool { self == .webp }

}
