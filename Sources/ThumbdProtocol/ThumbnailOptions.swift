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

    /// What `fm` takes: an output format, or `auto` (the best the request's `Accept` allows;
    /// the answer carries `Vary: Accept`).
    public enum Format: String, Sendable, CaseIterable {
        case jpeg, png, webp, avif
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
    /// 1...100; dropped for PNG.
    public var quality: Int?
    /// `pr`: progressive JPEG or interlaced PNG; dropped for other formats.
    public var progressive: Bool?
    /// `anim`: every frame of an animated source, for WebP output; dropped for other formats.
    public var animated: Bool?
    /// `p`: a preset name from the server's configuration.
    public var preset: String?

    public init(width: Int? = nil, height: Int? = nil, dpr: Double? = nil, fit: Fit? = nil, crop: Crop? = nil,
                enlarge: Bool? = nil, format: Format? = nil, quality: Int? = nil, progressive: Bool? = nil,
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

    /// Every parameter name a transform takes (`s`, the signature, included), in the normal
    /// form's order.
    public static let parameterNames: [String] = ["p", "w", "h", "dpr", "fit", "crop", "enlarge", "fm", "q", "pr", "anim", "s"]
    public static let signatureParameter = "s"
    public static let presetParameter = "p"
    public static let dprRange: ClosedRange<Double> = 1...4
    public static let qualityRange: ClosedRange<Int> = 1...100
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

    /// Names to values, refusing unknown and repeated names (and `p` and `s` where a preset's
    /// own parameters are read).
    public static func collect(_ pairs: [(name: String, value: String)], allowingPreset: Bool) throws(ParameterError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard parameterNames.contains(name), allowingPreset || (name != presetParameter && name != signatureParameter) else {
                throw .unknown(name)
            }
            guard values[name] == nil else { throw .repeated(name) }
            values[name] = value
        }
        return values
    }

    /// The options `values` (from `collect`, a preset already merged in, without `p` and `s`)
    /// spell, validated: a malformed or out-of-range value is an error naming its parameter.
    /// `maxDimension` bounds `w` and `h`.
    public init(values: [String: String], maxDimension: Int) throws(ParameterError) {
        func integer(_ name: String, in range: ClosedRange<Int>) throws(ParameterError) -> Int? {
            guard let text = values[name] else { return nil }
            guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text),
                  range.contains(n)
            else { throw ParameterError(parameter: name, detail: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'") }
            return n
        }
        func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws(ParameterError) -> T? where T.RawValue == String {
            guard let text = values[name] else { return nil }
            guard let value = T(rawValue: text) else {
                throw ParameterError(parameter: name, detail: "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
            }
            return value
        }
        func flag(_ name: String) throws(ParameterError) -> Bool? {
            guard let text = values[name] else { return nil }
            guard text == "0" || text == "1" else { throw ParameterError(parameter: name, detail: "\(name) must be 0 or 1, got '\(text)'") }
            return text == "1"
        }

        self.init(autoWidth: values["w"] == "auto", autoDPR: values["dpr"] == "auto")
        if !autoWidth { width = try integer("w", in: 1...maxDimension) }
        height = try integer("h", in: 1...maxDimension)
        if !autoDPR, let text = values["dpr"] {
            guard let ratio = Self.decimal(text), Self.dprRange.contains(ratio) else {
                throw ParameterError(parameter: "dpr", detail: "dpr must be a number in 1...4 or auto, got '\(text)'")
            }
            dpr = ratio
        }
        fit = try choice("fit", Fit.self)
        crop = try choice("crop", Crop.self)
        enlarge = try flag("enlarge")
        format = try choice("fm", Format.self)
        quality = try integer("q", in: Self.qualityRange)
        progressive = try flag("pr")
        animated = try flag("anim")
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
        let normal = TransformOptions(width: autoWidth ? 1 : w, height: h, fit: fit ?? .contain, crop: crop ?? .center,
                                      enlarge: enlarge ?? false, format: output)
        var items: [(name: String, value: String)] = []
        if autoWidth { items.append(("w", "auto")) } else if let w { items.append(("w", String(w))) }
        if let h { items.append(("h", String(h))) }
        if autoDPR {
            items.append(("dpr", "auto"))
        } else if hinted, ratio != 1 {
            items.append(("dpr", Self.decimalText(ratio)))
        }
        if normal.fit != .contain { items.append(("fit", normal.fit.rawValue)) }
        if normal.crop != .center { items.append(("crop", normal.crop.rawValue)) }
        if normal.enlarge { items.append(("enlarge", "1")) }
        if let format { items.append(("fm", format.rawValue)) }
        if let quality, output?.usesQuality ?? true { items.append(("q", String(quality))) }
        if let progressive, output?.usesProgressive ?? true { items.append(("pr", progressive ? "1" : "0")) }
        if animated == true, output?.keepsFrames ?? true { items.append(("anim", "1")) }
        return items
    }

    /// `w=200&h=100&fit=cover`, percent-encoded; empty for the original.
    public var query: String {
        normalQueryItems.map { "\($0.name)=\(PercentCoding.encode($0.value, keepingSlashes: false))" }.joined(separator: "&")
    }

    private func presetItems(_ preset: String) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = [("p", preset)]
        if autoWidth { items.append(("w", "auto")) } else if let width { items.append(("w", String(width))) }
        if let height { items.append(("h", String(height))) }
        if autoDPR { items.append(("dpr", "auto")) } else if let dpr { items.append(("dpr", Self.decimalText(Self.clampedRatio(dpr)))) }
        if let fit { items.append(("fit", fit.rawValue)) }
        if let crop { items.append(("crop", crop.rawValue)) }
        if let enlarge { items.append(("enlarge", enlarge ? "1" : "0")) }
        if let format { items.append(("fm", format.rawValue)) }
        if let quality { items.append(("q", String(quality))) }
        if let progressive { items.append(("pr", progressive ? "1" : "0")) }
        if let animated { items.append(("anim", animated ? "1" : "0")) }
        return items
    }

    /// `2`, `1.5`, `2.625`: at most four decimals, no exponent (the server reads plain decimals only).
    static func decimalText(_ value: Double) -> String { DecimalText.format(value, fractionDigits: 4) }
}
