/// A request's transform in normal form: its parameters (and preset) validated and folded
/// into `TransformOptions`, with the server's defaults applied. Pure.
public struct TransformRequest: Sendable, Equatable {
    public var options: TransformOptions
    /// `fm=auto`: the format is chosen per request from `Accept` (and `Vary: Accept` sent).
    public var negotiatesFormat: Bool
    /// `w=auto` or `dpr=auto`: sizes come from each request's Client Hints (see
    /// `resolved(hintedWidth:hintedDPR:)`); until then `options` holds the sizes without them.
    public var hints: HintUse?
    /// What a request with hints asked for, kept to normalize again once they are known.
    private var pending: Pending?

    /// The server's settings a request's missing values come from.
    public struct Defaults: Sendable, Equatable {
        /// Bounds `w` and `h` after `dpr`.
        public var maxDimension: Int
        public var quality: Int
        public var progressive: Bool
        /// The watermark every output gets unless a request names another (`watermark.default`).
        public var watermark: Watermark?
        /// Whether `wm=none` may turn that default off (`watermark.optional`).
        public var watermarkOptional: Bool
        /// `output.avif_effort`.
        public var avifEffort: Int
        /// `q=auto`'s settings (`output.auto_quality_*`), the target where a request names none.
        public var autoQuality: AutoQuality
        /// `output.auto_quality`: `q=auto` where a request gives no `q`.
        public var autoQualityByDefault: Bool

        public init(maxDimension: Int = ThumbnailOptions.defaultMaxDimension, quality: Int = OutputFormat.defaultQuality,
                    progressive: Bool = false, watermark: Watermark? = nil, watermarkOptional: Bool = true,
                    avifEffort: Int = OutputFormat.defaultAVIFEffort, autoQuality: AutoQuality = AutoQuality(),
                    autoQualityByDefault: Bool = false) {
            self.maxDimension = maxDimension
            self.quality = quality
            self.progressive = progressive
            self.watermark = watermark
            self.watermarkOptional = watermarkOptional
            self.avifEffort = avifEffort
            self.autoQuality = autoQuality
            self.autoQualityByDefault = autoQualityByDefault
        }

        /// `q` as asked (nil: not given) with these defaults: a fixed quality, and the search
        /// where `q=auto` asks for one (the fixed quality is then for formats it cannot measure).
        func resolvedQuality(_ asked: ThumbnailOptions.Quality?) -> (fixed: Int, auto: AutoQuality?) {
            var auto = autoQuality
            switch asked {
            case .fixed(let fixed): return (fixed, nil)
            case .auto: return (quality, auto)
            case .autoTarget(let target):
                auto.target = target
                return (quality, auto)
            case nil: return (quality, autoQualityByDefault ? auto : nil)
            }
        }
    }

    /// Which sizes wait for Client Hints.
    public struct HintUse: Sendable, Equatable {
        /// `w=auto`: the width is `Sec-CH-Width` (already in device pixels).
        public var width: Bool
        /// `dpr=auto`: the ratio is `Sec-CH-DPR`, clamped to 1...4 (1 without the hint).
        public var dpr: Bool
    }

    private struct Pending: Sendable, Equatable {
        var requested: ThumbnailOptions
        var defaults: Defaults
    }

    /// `requested` in normal form. A preset must already be merged in (`preset` is ignored).
    public init(_ requested: ThumbnailOptions, defaults: Defaults) throws(ParameterError) {
        try self.init(requested, defaults: defaults, paddingRatio: nil)
    }

    /// `paddingRatio`: the ratio paddings are scaled by when `requested.dpr` no longer says it
    /// (a request resolved from its Client Hints).
    private init(_ requested: ThumbnailOptions, defaults: Defaults, paddingRatio: Double?) throws(ParameterError) {
        // `w=auto`: any `width` is ignored, the hint decides.
        var width = requested.autoWidth ? nil : requested.width
        var height = requested.height
        var ratio = paddingRatio ?? 1
        if requested.autoWidth || requested.autoDPR {
            hints = HintUse(width: requested.autoWidth, dpr: requested.autoDPR)
            pending = Pending(requested: requested, defaults: defaults)
        } else if let dpr = requested.dpr {
            (width, height) = try Self.scaled(width, height, by: dpr, maxDimension: defaults.maxDimension)
            ratio = dpr
        }
        let (rotation, mirrored) = ThumbnailOptions.orientation(rotation: requested.rotation, flip: requested.flip)
        let quality = defaults.resolvedQuality(requested.quality)
        options = TransformOptions(width: width, height: height, fit: requested.fit ?? .contain, crop: requested.crop ?? .center,
                                   enlarge: requested.enlarge ?? false, format: requested.format?.output,
                                   quality: quality.fixed,
                                   progressive: requested.progressive ?? defaults.progressive, animated: requested.animated ?? false,
                                   region: requested.region, trim: requested.trim, focus: requested.focus, rotation: rotation,
                                   mirrored: mirrored, padding: requested.padding?.scaled(by: ratio), background: requested.background,
                                   blur: requested.blur, sharpen: requested.sharpen, gray: requested.gray ?? false,
                                   watermark: try Self.watermark(requested, defaults: defaults, ratio: ratio),
                                   maxBytes: requested.maxBytes, page: requested.page ?? 1, avifEffort: defaults.avifEffort,
                                   redact: requested.redact, time: requested.time, autoQuality: quality.auto)
        negotiatesFormat = requested.format == .auto
    }

    /// The watermark a request gets: the one it names, else the server's default (unless it
    /// says `wm=none` where that is allowed), with its settings over the default's.
    static func watermark(_ requested: ThumbnailOptions, defaults: Defaults, ratio: Double) throws(ParameterError) -> Watermark? {
        let base: Watermark
        switch requested.watermark {
        case .off:
            guard defaults.watermark == nil || defaults.watermarkOptional else {
                throw ParameterError(parameter: "wm", detail: "wm=none is not allowed: this server watermarks every image")
            }
            return nil
        case .image(let path):
            base = Watermark(path: path, position: defaults.watermark?.position ?? Watermark.defaultPosition,
                             scale: defaults.watermark?.scale ?? Watermark.defaultScale,
                             opacity: defaults.watermark?.opacity ?? Watermark.defaultOpacity,
                             padding: defaults.watermark?.padding ?? Watermark.defaultPadding)
        case nil:
            guard let fallback = defaults.watermark else { return nil }
            base = fallback
        }
        return Watermark(path: base.path, position: requested.watermarkPosition ?? base.position,
                         scale: requested.watermarkScale ?? base.scale, opacity: requested.watermarkOpacity ?? base.opacity,
                         // A padding given in the request is in points (times dpr), the default's in pixels, so
                         // that `w=100&dpr=2` and `w=200` stay one request.
                         padding: requested.watermarkPadding.map { Int((Double($0) * ratio).rounded()) } ?? base.padding)
    }

    /// `w` and `h` times a ratio, as the server rounds them, within the dimension limit.
    static func scaled(_ width: Int?, _ height: Int?, by dpr: Double, maxDimension: Int) throws(ParameterError) -> (Int?, Int?) {
        let w = width.map { ThumbnailOptions.scaled($0, by: dpr) }
        let h = height.map { ThumbnailOptions.scaled($0, by: dpr) }
        if max(w ?? 0, h ?? 0) > maxDimension {
            throw ParameterError(parameter: "dpr", detail: "w or h times dpr is over the limit of \(maxDimension) pixels")
        }
        return (w, h)
    }

    /// The request with the sizes its Client Hints give (`hintedWidth` from `Sec-CH-Width`,
    /// `hintedDPR` from `Sec-CH-DPR`), and the ratio applied for `dpr=auto`; itself when it
    /// uses none. `w=auto` without a width hint is a 400 naming `w`.
    public func resolved(hintedWidth: Int?, hintedDPR: Double?) throws(ParameterError) -> (TransformRequest, dpr: Double?) {
        guard let use = hints, let pending else { return (self, nil) }
        let maxDimension = pending.defaults.maxDimension
        let dpr = use.dpr ? ThumbnailOptions.clampedRatio(hintedDPR ?? 1) : pending.requested.dpr ?? 1
        var concrete = pending.requested
        concrete.autoWidth = false
        concrete.autoDPR = false
        concrete.dpr = nil
        if use.width { concrete.width = nil }
        (concrete.width, concrete.height) = try Self.scaled(concrete.width, concrete.height, by: dpr, maxDimension: maxDimension)
        if use.width {
            guard let hintedWidth else {
                throw ParameterError(parameter: "w", detail: "w=auto needs the Sec-CH-Width client hint, which the request did not send")
            }
            guard (1...maxDimension).contains(hintedWidth) else {
                throw ParameterError(parameter: "w", detail: "Sec-CH-Width \(hintedWidth) is outside 1...\(maxDimension)")
            }
            concrete.width = hintedWidth
        }
        return (try TransformRequest(concrete, defaults: pending.defaults, paddingRatio: dpr), use.dpr ? dpr : nil)
    }
}
