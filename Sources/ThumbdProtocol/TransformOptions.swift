/// A transform, normalized: equivalent requests produce equal values. What the server's
/// image pipeline runs with, and what its cache keys and ETags are made from.
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

    /// Drops what cannot matter, so it cannot split the cache. The one statement of these
    /// rules: the client's normal form (`ThumbnailOptions.normalQueryItems`) applies them too.
    public mutating func normalize() {
        if width == nil || height == nil { fit = .contain }
        if fit != .cover { crop = .center }
        // Known formats that cannot use them drop them; an unsettled format keeps them until it is.
        if let format, !format.usesQuality { quality = nil }
        if let format, !format.usesProgressive { progressive = false }
        if let format, !format.keepsFrames { animated = false }
    }

    /// Whether the output keeps every frame: asked for, and WebP (an unsettled format becomes
    /// JPEG or PNG, which have one frame).
    public var keepsFrames: Bool { animated && format?.keepsFrames == true }
}
