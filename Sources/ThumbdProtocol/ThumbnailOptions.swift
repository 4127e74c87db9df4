import WireCoding

/// What a thumbnail URL asks for: the `/img` and `/proxy` transform parameters, typed. Apps
/// build it (ThumbdKit's URL builder renders `normalQueryItems`); the server reads it from a
/// query (`init(values:maxDimension:)`) and normalizes it (`TransformRequest`). Both sides go
/// through this one statement of the names, ranges and normal form.
///
/// Values are as given: nil (or false for the `auto` flags) means "not given", so the server's
/// configured defaults (quality, progressive) and a preset's values still apply.
public struct ThumbnailOptions: Sendable, Hashable {
    public typealias Fit = TransformOptions.Fit
    public typealias Crop = TransformOptions.Crop
    public typealias Redaction = TransformOptions.Redaction

    /// What `fm` takes: an output format, or `auto` (the best the request's `Accept` allows;
    /// the answer carries `Vary: Accept`).
    public enum Format: String, Sendable, CaseIterable {
        case jpeg, png, webp, avif, jxl
        case auto

        /// The output format it names; nil for `auto`.
        public var output: OutputFormat? { OutputFormat(rawValue: rawValue) }
    }

    /// Box in points; multiplied by `dpr` into pixels.
    public var width: Int?
    public var height: Int?
    /// Device pixel ratio, 1...4 (the server refuses others; rendering clamps into the range).
    public var dpr: Double?
    /// `w=auto`: the width is the request's `Sec-CH-Width` hint (device pixels); `width` is unused.
    public var autoWidth: Bool
    /// `dpr=auto`: the ratio is the request's `Sec-CH-DPR` hint (1 without it); `dpr` is unused.
    public var autoDPR: Bool
    public var fit: Fit?
    public var crop: Crop?
    public var enlarge: Bool?
    public var format: Format?
    /// 1...100, or `auto` (`q=auto`); dropped for PNG.
    public var quality: Quality?
    /// `pr`: progressive JPEG or interlaced PNG; dropped for other formats.
    public var progressive: Bool?
    /// `anim`: every frame of an animated source, for WebP output; dropped for other formats.
    public var animated: Bool?
    /// `p`: a preset name from the server's configuration.
    public var preset: String?

    // Image operations, in the order the pipeline applies them (see `TransformOptions`).

    /// `rect`: crop this region of the source (its pixels, after orientation) first.
    public var region: PixelRect?
    /// `trim`: remove a uniform border, threshold 1...100, before resizing.
    public var trim: Int?
    /// `fp`: for `fit=cover`, the point kept as centred as the box allows (replaces `crop`).
    public var focus: FocalPoint?
    /// `rot`: degrees clockwise, a multiple of 90, after EXIF orientation.
    public var rotation: Int?
    /// `flip`: mirror after rotating.
    public var flip: Flip?
    /// `pad`: extra padding in points (times `dpr`), in `background`.
    public var padding: EdgeInsets?
    /// `bg`: what padding is filled with and alpha flattened on (white when not given).
    public var background: RGBAColor?
    /// `blur`: Gaussian blur sigma 0.3...100 (0: none), after resizing.
    public var blur: Double?
    /// `sharpen`: unsharp-mask sigma 0.3...10 (0: none), after resizing.
    public var sharpen: Double?
    /// `gray`: greyscale output.
    public var gray: Bool?
    /// `wm`: a library image drawn over the output, or `.off` to turn off the server's default.
    public var watermark: WatermarkChoice?
    public var watermarkPosition: WatermarkPosition?
    /// `wmscale`: the watermark's width as a fraction 0.05...1 of the output's.
    public var watermarkScale: Double?
    /// `wmop`: its opacity, 0...1.
    public var watermarkOpacity: Double?
    /// `wmpad`: points between it and the edges (times `dpr`).
    public var watermarkPadding: Int?
    /// `mb`: the output at most this many bytes (quality lowered until it fits).
    public var maxBytes: Int?
    /// `page`: the page (from 1) of a PDF or multi-page source.
    public var page: Int?
    /// `redact`: what is pixelated in the source before anything else (`face`: every face found).
    public var redact: Redaction?
    /// `t`: when in a video its poster frame is taken.
    public var time: VideoTime?

    /// What `wm` names.
    public enum WatermarkChoice: Sendable, Hashable {
        case image(String)
        /// `wm=none`: no watermark, where the server lets a request turn its default off.
        case off
    }

    public init(width: Int? = nil, height: Int? = nil, dpr: Double? = nil, fit: Fit? = nil, crop: Crop? = nil,
                enlarge: Bool? = nil, format: Format? = nil, quality: Quality? = nil, progressive: Bool? = nil,
                animated: Bool? = nil, preset: String? = nil, autoWidth: Bool = false, autoDPR: Bool = false) {
        self.width = width
        self.height = height
        self.dpr = dpr
        self.fit = fit
        self.crop = crop
        self.enlarge = enlarge
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.animated = animated
        self.preset = preset
        self.autoWidth = autoWidth
        self.autoDPR = autoDPR
    }

    /// No transform: the original bytes.
    public static let original = ThumbnailOptions()

    // MARK: - Names and ranges

    /// Every parameter name a transform takes (`expires` and `s`, the signature, included), in
    /// the normal form's order.
    public static let parameterNames: [String] = [presetParameter] + parameters.map(\.name) + [expiryParameter, signatureParameter]
    public static let signatureParameter = "s"
    /// When a URL stops being served (Unix seconds), covered by its signature; never part of
    /// the options, so every expiry shares one cache entry.
    public static let expiryParameter = "expires"
    public static let presetParameter = "p"
    public static let dprRange: ClosedRange<Double> = 1...4
    public static let qualityRange: ClosedRange<Int> = 1...100
    public static let blurRange: ClosedRange<Double> = 0.3...100
    public static let sharpenRange: ClosedRange<Double> = 0.3...10
    public static let trimRange: ClosedRange<Int> = 1...100
    public static let paddingRange: ClosedRange<Int> = 0...1000
    public static let rectRange: ClosedRange<Int> = 0...100_000
    public static let watermarkScaleRange: ClosedRange<Double> = 0.05...1
    public static let maxBytesRange: ClosedRange<Int> = 100...1_000_000_000
    public static let pageRange: ClosedRange<Int> = 1...100_000
    /// `limits.max_dimension`'s default: the largest `w` or `h` (after `dpr`).
    public static let defaultMaxDimension = 4096

    static func clampedRatio(_ ratio: Double) -> Double {
        ratio.isFinite ? min(dprRange.upperBound, max(dprRange.lowerBound, ratio)) : 1
    }

    /// The server's rounding of `w * dpr`.
    static func scaled(_ points: Int, by ratio: Double) -> Int {
        Int((Double(points) * ratio).rounded())
    }

    // MARK: - Reading a query

    /// Names to values, refusing unknown and repeated names (and `p`, `expires` and `s` where
    /// a preset's own parameters are read).
    public static func collect(_ pairs: [(name: String, value: String)], allowingPreset: Bool) throws(ParameterError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard parameterNames.contains(name),
                  allowingPreset || (name != presetParameter && name != signatureParameter && name != expiryParameter) else {
                throw .unknown(name)
            }
            guard values[name] == nil else { throw .repeated(name) }
            values[name] = value
        }
        return values
    }

    /// The options `values` (from `collect`, a preset already merged in, without `p` and `s`)
    /// spell, validated by each parameter's row: a malformed or out-of-range value is an error
    /// naming its parameter. `maxDimension` bounds `w` and `h`.
    public init(values: [String: String], maxDimension: Int) throws(ParameterError) {
        self.init()
        for parameter in Self.parameters {
            if let text = values[parameter.name] { try parameter.read(&self, text, maxDimension) }
        }
    }

    /// `12`, or `-90` where `signed`: plain digits, at most nine.
    static func integer(_ text: Substring, signed: Bool = false) -> Int? {
        let digits = signed && text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.count <= 9, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(digits) else {
            return nil
        }
        return digits.count == text.count ? n : -n
    }

    /// `2`, `1.5`, `2.25`: plain decimals only (no exponents, signs or spaces).
    static func decimal(_ text: String) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 6 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
        else { return nil }
        return Double(text)
    }

    // MARK: - The normal form

    /// The parameters in the normal form and order (unencoded values): requests that mean the
    /// same thing give the same items, so they are one URL (one cache entry in the app and on
    /// the server).
    /// - `dpr` is folded into `w` and `h` as the server rounds it (`w=100&dpr=2` is `w=200`),
    ///   except where a Client Hint decides a size (`w=auto`, `dpr=auto`);
    /// - what `TransformOptions.normalize()` drops is dropped (`fit` without both sides, `crop`
    ///   without `cover`, `q` for PNG, `pr` and `anim` where the format cannot use them), and
    ///   so are the defaults (`fit=contain`, `crop=center`, `enlarge=0`, `anim=0`).
    ///
    /// With a preset nothing is folded or dropped, since what the preset sets is the server's:
    /// `p` first, then every explicit parameter as given (they override the preset's).
    public var normalQueryItems: [(name: String, value: String)] {
        if let preset { return presetItems(preset) }
        let hinted = autoWidth || autoDPR
        let ratio = dpr.map(Self.clampedRatio) ?? 1
        let w = hinted ? width : width.map { Self.scaled($0, by: ratio) }
        let h = hinted ? height : height.map { Self.scaled($0, by: ratio) }
        let output = format?.output
        // `w=auto` has a width, only not yet known: 1 stands in for it.
        let (rotation, mirrored) = Self.orientation(rotation: self.rotation, flip: flip)
        let normal = TransformOptions(width: autoWidth ? 1 : w, height: h, fit: fit ?? .contain, crop: crop ?? .center,
                                      enlarge: enlarge ?? false, format: output, animated: animated ?? false, region: region,
                                      trim: trim, focus: focus, rotation: rotation, mirrored: mirrored,
                                      padding: hinted ? padding : padding?.scaled(by: ratio), background: background,
                                      blur: blur, sharpen: sharpen, gray: gray ?? false, maxBytes: maxBytes, page: page ?? 1,
                                      redact: redact, time: time)
        let form = URLParameter.NormalForm(options: self, normal: normal, hinted: hinted, ratio: ratio, width: w, height: h, output: output)
        return Self.parameters.compactMap { parameter in parameter.normal(form).map { (parameter.name, $0) } }
    }

    /// `rot` and `flip` as the one rotation (0, 90, 180, 270) followed by an optional left-right
    /// mirror they amount to: `flip=v` is `rot=180` then `flip=h`, `flip=hv` is `rot=180`.
    public static func orientation(rotation: Int?, flip: Flip?) -> (rotation: Int, mirrored: Bool) {
        let degrees = rotation ?? 0
        switch flip {
        case nil: return (degrees, false)
        case .h: return (degrees, true)
        case .v: return (degrees + 180, true)
        case .hv: return (degrees + 180, false)
        }
    }

    /// `w=200&h=100&fit=cover`, percent-encoded; empty for the original.
    public var query: String {
        normalQueryItems.map { "\($0.name)=\(PercentCoding.encode($0.value, keepingSlashes: false))" }.joined(separator: "&")
    }

    private func presetItems(_ preset: String) -> [(name: String, value: String)] {
        [(Self.presetParameter, preset)] + Self.parameters.compactMap { parameter in parameter.given(self).map { (parameter.name, $0) } }
    }

    /// `2`, `1.5`, `2.625`: at most four decimals, no exponent (the server reads plain decimals only).
    static func decimalText(_ value: Double) -> String { DecimalText.format(value, fractionDigits: 4) }
}
