import CVipsShim
import ThumbdProtocol

extension OutputFormat {
    /// What a source in `format` becomes when no `fm` is asked: the same where thumbd
    /// encodes it, JPEG for a video's frame, PNG for the rest (GIF included: its 256 colours
    /// would spoil thumbnails).
    public static func defaultOutput(for source: ImageFormat?) -> OutputFormat {
        switch source {
        case .jpeg, .mp4, .mov, .webm: .jpeg
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
        case .jxl: TV_JXL
        case .gif: TV_GIF
        }
    }
}

extension TransformOptions {
    /// The options with the output format fixed for a source (no-op when already set), and a
    /// video's time dropped for an image (known as one), so `t` cannot split its cache.
    public func resolved(for source: ImageFormat?) -> TransformOptions {
        var copy = self
        if let source, !source.isVideo { copy.time = nil }
        if copy.format == nil {
            copy.format = OutputFormat.defaultOutput(for: source)
            copy.normalize()
        }
        return copy
    }
}
