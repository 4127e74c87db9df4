/// A transform, normalized: equivalent requests produce equal values (and the same
/// `canonicalText`, which cache keys and ETags are made from).
public struct TransformOptions: Sendable, Hashable {
    public enum Fit: String, Sendable, CaseIterable { case contain, cover, fill }
    public enum Crop: String, Sendable, CaseIterable { case center, top, bottom, left, right, entropy, attention }

    /// Target box in output pixels (dpr already applied); nil: that side follows the other
    /// (aspect kept) or the source.
    public var width: Int?
    public var height: Int?
    public var fit: Fit
    public var crop: Crop
    public var enlarge: Bool
    /// nil: decided from the image itself when it is transformed (`OutputFormat.universal`).
    public var format: OutputFormat?
    /// nil for formats without a quality setting.
    public var quality: Int?
    /// Progressive JPEG or interlaced PNG (`pr=1`); nothing for other formats.
    public var progressive: Bool
    /// Every frame of an animated source (`anim=1`), for WebP output; otherwise the first.
    public var animated: Bool

    public init(width: Int? = nil, height: Int? = nil, fit: Fit = .contain, crop: Crop = .center, enlarge: Bool = false,
                format: OutputFormat? = nil, quality: Int? = OutputFormat.defaultQuality, progressive: Bool = false,
                animated: Bool = false) {
        self.width = width
        self.height = height
        self.fit = fit
        self.crop = crop
        self.enlarge = enlarge
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.animated = animated
        normalize()
    }

    /// Drops what cannot matter, so it cannot split the cache.
    public mutating func normalize() {
        if width == nil || height == nil { fit = .contain }
        if fit != .cover { crop = .center }
        if let format, !format.usesQuality { quality = nil }
        // Known formats that cannot use them drop them; an unsettled format keeps them until it is.
        if let format, format != .jpeg && format != .png { progressive = false }
        if let format, format != .webp { animated = false }
    }

    /// Whether the output keeps every frame: asked for, and WebP (an unsettled format becomes
    /// JPEG or PNG, which have one frame).
    public var keepsFrames: Bool { animated && format == .webp }

    /// The options with the output format fixed for a source (no-op when already set).
    public func resolved(for source: ImageFormat?) -> TransformOptions {
        var copy = self
        if copy.format == nil {
            copy.format = OutputFormat.defaultOutput(for: source)
            copy.normalize()
        }
        return copy
    }

    /// `w=300,h=200,fit=cover,crop=center,enlarge=0,fm=webp,q=80`: stable across releases
    /// and restarts, since ETags and cache keys are derived from it.
    public var canonicalText: String {
        var parts: [String] = []
        parts.append("w=\(width.map(String.init) ?? "-")")
        parts.append("h=\(height.map(String.init) ?? "-")")
        parts.append("fit=\(fit.rawValue)")
        parts.append("crop=\(crop.rawValue)")
        parts.append("enlarge=\(enlarge ? 1 : 0)")
        parts.append("fm=\(format?.rawValue ?? "source")")
        parts.append("q=\(quality.map(String.init) ?? "-")")
        // Only when on, so the keys and ETags of everything made before these existed stay valid.
        if progressive { parts.append("pr=1") }
        if animated { parts.append("anim=1") }
        return parts.joined(separator: ",")
    }
}
