/// A transform, normalized: equivalent requests produce equal values. What the server's
/// image pipeline runs with, and what its cache keys and ETags are made from.
///
/// The pipeline applies it in this order (docs/image-operations.md): orientation, `redact`, `rect`,
/// `trim`, resize and fit (with `focus`), rotation, mirror, padding, blur, sharpen, grey,
/// watermark, flattening on the background, encoding (within `maxBytes`).
public struct TransformOptions: Sendable, Hashable {
    public enum Fit: String, Sendable, CaseIterable { case contain, cover, fill, pad }
    /// `face`: the crop keeps every face found (`attention` where none is).
    public enum Crop: String, Sendable, CaseIterable { case center, top, bottom, left, right, entropy, attention, face }
    /// What `redact` hides before anything else is done.
    public enum Redaction: String, Sendable, CaseIterable { case face }

    /// Target box in output pixels (dpr already applied); nil: that side follows the other
    /// (aspect kept) or the source.
    public var width: Int?
    public var height: Int?
    public var fit: Fit
    public var crop: Crop
    public var enlarge: Bool
    /// nil: decided from the image itself when it is transformed (`OutputFormat.universal`).
    public var format: OutputFormat?
    /// nil for formats without a quality setting. With `autoQuality`, what a format `q=auto`
    /// cannot measure (JPEG XL) is encoded at.
    public var quality: Int?
    /// `q=auto`: the quality chosen per thumbnail (`AutoQuality`); nil for a fixed one. Part of
    /// the key in place of `quality`.
    public var autoQuality: AutoQuality?
    /// Progressive JPEG or interlaced PNG (`pr=1`); nothing for other formats.
    public var progressive: Bool
    /// Every frame of an animated source (`anim=1`), for WebP output; otherwise the first.
    public var animated: Bool
    /// `rect`: this region of the source (after orientation), before anything else.
    public var region: PixelRect?
    /// `trim`: a uniform border removed first, with this threshold (1...100).
    public var trim: Int?
    /// `fp`: for `fit=cover`, the point kept as centred as the box allows (replaces `crop`).
    public var focus: FocalPoint?
    /// Degrees clockwise (0, 90, 180, 270) and then a left-right mirror: every combination
    /// of `rot` and `flip` is one of these eight.
    public var rotation: Int
    public var mirrored: Bool
    /// `pad`: extra pixels around the output (dpr applied), in `background`.
    public var padding: EdgeInsets?
    /// What padding is filled with and alpha flattened on; nil: white.
    public var background: RGBAColor?
    /// Gaussian blur sigma, after resizing.
    public var blur: Double?
    /// Unsharp-mask sigma, after resizing.
    public var sharpen: Double?
    public var gray: Bool
    public var watermark: Watermark?
    /// `mb`: the encoded output at most this many bytes.
    public var maxBytes: Int?
    /// The page (from 1) of a multi-page source (PDF, TIFF, HEIF).
    public var page: Int
    /// The AVIF encoder's effort when the server's (`output.avif_effort`) is not the default;
    /// nil otherwise and for every other format, so it only enters AVIF outputs' keys.
    public var avifEffort: Int?
    /// `redact=face`: every face found pixelated in the source, first.
    public var redact: Redaction?
    /// `t`: the time of a video's poster frame; nil: the server's choice. Dropped for images
    /// (`resolved(for:)`) and for animated previews.
    public var time: VideoTime?

    public init(width: Int? = nil, height: Int? = nil, fit: Fit = .contain, crop: Crop = .center, enlarge: Bool = false,
                format: OutputFormat? = nil, quality: Int? = OutputFormat.defaultQuality, progressive: Bool = false,
                animated: Bool = false, region: PixelRect? = nil, trim: Int? = nil, focus: FocalPoint? = nil, rotation: Int = 0,
                mirrored: Bool = false, padding: EdgeInsets? = nil, background: RGBAColor? = nil, blur: Double? = nil,
                sharpen: Double? = nil, gray: Bool = false, watermark: Watermark? = nil, maxBytes: Int? = nil, page: Int = 1,
                avifEffort: Int? = nil, redact: Redaction? = nil, time: VideoTime? = nil, autoQuality: AutoQuality? = nil) {
        self.width = width
        self.height = height
        self.fit = fit
        self.crop = crop
        self.enlarge = enlarge
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.animated = animated
        self.region = region
        self.trim = trim
        self.focus = focus
        self.rotation = rotation
        self.mirrored = mirrored
        self.padding = padding
        self.background = background
        self.blur = blur
        self.sharpen = sharpen
        self.gray = gray
        self.watermark = watermark
        self.maxBytes = maxBytes
        self.page = page
        self.avifEffort = avifEffort
        self.redact = redact
        self.time = time
        self.autoQuality = autoQuality
        normalize()
    }

    /// Drops what cannot matter, so it cannot split the cache. The one statement of these
    /// rules: the client's normal form (`ThumbnailOptions.normalQueryItems`) applies them too.
    public mutating func normalize() {
        if width == nil || height == nil { fit = .contain }
        if fit != .cover { crop = .center; focus = nil }
        // The middle is what a centred crop keeps already; a focal point replaces the crop.
        if focus == .centre { focus = nil }
        if focus != nil { crop = .center }
        // Known formats that cannot use them drop them; an unsettled format keeps them until it is.
        if let format, !format.usesQuality { quality = nil }
        if let format, !format.measuresQuality { autoQuality = nil }
        if let format, !format.usesProgressive { progressive = false }
        if let format, !format.keepsFrames { animated = false }
        rotation = ((rotation % 360) + 360) % 360
        if padding?.isZero == true { padding = nil }
        if blur == 0 { blur = nil }
        if sharpen == 0 { sharpen = nil }
        // The background fills padding and is what alpha is flattened on: without padding, a
        // format that keeps alpha never shows it. A format without alpha shows no alpha of it.
        let pads = padding != nil || fit == .pad
        if let format, !format.supportsAlpha, background != nil { background?.alpha = 255 }
        if !pads, let format, format.supportsAlpha { background = nil }
        if background == .white { background = nil }
        if page < 1 { page = 1 }
        if avifEffort == OutputFormat.defaultAVIFEffort { avifEffort = nil }
        if let format, format != .avif { avifEffort = nil }
        // Frames are resized and cropped alike; operations that would treat the strip of
        // frames as one picture (or take a region of it) take the first frame instead.
        // Faces are found in the first frame: a redacted animation would show them in the others.
        if region != nil || trim != nil || rotation != 0 || padding != nil || fit == .pad || blur != nil || sharpen != nil
            || watermark != nil || redact != nil {
            animated = false
        }
        // A video's preview spreads its frames over the whole clip.
        if keepsFrames { time = nil }
    }

    /// Whether the output keeps every frame: asked for, and WebP (an unsettled format becomes
    /// JPEG or PNG, which have one frame).
    public var keepsFrames: Bool { animated && format?.keepsFrames == true }
}
