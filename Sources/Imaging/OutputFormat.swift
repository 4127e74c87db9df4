import CVipsShim

/// Formats thumbd encodes.
public enum OutputFormat: String, Sendable, CaseIterable, Hashable {
    case jpeg, png, webp, avif, gif

    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .gif: "image/gif"
        }
    }

    public var supportsAlpha: Bool { self != .jpeg }

    /// The quality of JPEG, WebP and AVIF when nothing else says.
    public static let defaultQuality = 80

    /// What every client decodes: PNG when the image has alpha, JPEG otherwise.
    public static func universal(hasAlpha: Bool) -> OutputFormat { hasAlpha ? .png : .jpeg }

    /// Whether `q` means anything for this format (it is dropped from the options otherwise).
    public var usesQuality: Bool { self == .jpeg || self == .webp || self == .avif }

    /// What a source in `format` becomes when no `fm` is asked: the same where thumbd
    /// encodes it, PNG for the rest (GIF included: its 256 colours would spoil thumbnails).
    public static func defaultOutput(for source: ImageFormat?) -> OutputFormat {
        switch source {
        case .jpeg: .jpeg
        case .webp: .webp
        case .avif: .avif
        default: .png
        }
    }

    var shimFormat: tv_format {
        switch self {
        case .jpeg: TV_JPEG
        case .png: TV_PNG
        case .webp: TV_WEBP
        case .avif: TV_AVIF
        case .gif: TV_GIF
        }
    }
}
