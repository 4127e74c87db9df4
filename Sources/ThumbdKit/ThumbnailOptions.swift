/// What to ask thumbd for: the `/img` and `/proxy` transform parameters, typed.
///
/// `queryItems` renders them in thumbd's normal form, so requests that mean the same thing
/// are the same URL (one cache entry in the app and on the server):
/// - `dpr` is folded into `w` and `h` the way the server does it
///   (`Int((Double(w) * dpr).rounded())`), so `w=100, dpr=2` and `w=200` are one URL;
/// - what the server normalizes away is dropped: `fit` unless both `w` and `h` are set, `crop`
///   unless `fit=cover`, `q` with `fm=png`, and the defaults (`fit=contain`, `crop=center`,
///   `enlarge=0`);
/// - parameters come in the server's canonical order: `w, h, fit, crop, enlarge, fm, q`.
///
/// With a preset (`p`), the client cannot know what the preset sets, so nothing is folded or
/// dropped: `p` comes first, then every explicit parameter as given (explicit parameters
/// override the preset's on the server).
public struct ThumbnailOptions: Sendable, Hashable {
    public enum Fit: String, Sendable, CaseIterable {
        case contain, cover, fill
    }

    public enum Crop: String, Sendable, CaseIterable {
        case center, top, bottom, left, right, entropy, attention
    }

    public enum Format: String, Sendable, CaseIterable {
        case jpeg, png, webp, avif
        /// The best format the loader's `Accept` allows (the answer carries `Vary: Accept`).
        case auto
    }

    /// Box in points; multiplied by `dpr` into pixels.
    public var width: Int?
    public var height: Int?
    /// Device pixel ratio, 1...4 (clamped into that range, as the server refuses others).
    public var dpr: Double?
    public var fit: Fit?
    public var crop: Crop?
    public var enlarge: Bool?
    public var format: Format?
    /// 1...100; dropped for PNG.
    public var quality: Int?
    /// A preset name from the server's configuration.
    public var preset: String?

    public init(width: Int? = nil, height: Int? = nil, dpr: Double? = nil, fit: Fit? = nil, crop: Crop? = nil,
                enlarge: Bool? = nil, format: Format? = nil, quality: Int? = nil, preset: String? = nil) {
        self.width = width
        self.height = height
        self.dpr = dpr
        self.fit = fit
        self.crop = crop
        self.enlarge = enlarge
        self.format = format
        self.quality = quality
        self.preset = preset
    }

    /// No transform: the original bytes.
    public static let original = ThumbnailOptions()

    /// The parameters in thumbd's normal form and order (unencoded values).
    public var queryItems: [(name: String, value: String)] {
        if let preset { return presetItems(preset) }
        let ratio = dpr.map(Self.clampedRatio) ?? 1
        let w = width.map { Self.scaled($0, by: ratio) }
        let h = height.map { Self.scaled($0, by: ratio) }
        // The same rules as the server's `TransformOptions.normalize()`.
        let effectiveFit: Fit = (w != nil && h != nil) ? (fit ?? .contain) : .contain
        let effectiveCrop: Crop = effectiveFit == .cover ? (crop ?? .center) : .center
        var items: [(name: String, value: String)] = []
        if let w { items.append(("w", String(w))) }
        if let h { items.append(("h", String(h))) }
        if effectiveFit != .contain { items.append(("fit", effectiveFit.rawValue)) }
        if effectiveCrop != .center { items.append(("crop", effectiveCrop.rawValue)) }
        if enlarge == true { items.append(("enlarge", "1")) }
        if let format { items.append(("fm", format.rawValue)) }
        if let quality, format != .png { items.append(("q", String(quality))) }
        return items
    }

    /// `w=200&h=100&fit=cover`, percent-encoded; empty for the original.
    public var query: String {
        queryItems.map { "\($0.name)=\(PercentEncoding.encode($0.value, keepingSlashes: false))" }.joined(separator: "&")
    }

    private func presetItems(_ preset: String) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = [("p", preset)]
        if let width { items.append(("w", String(width))) }
        if let height { items.append(("h", String(height))) }
        if let dpr { items.append(("dpr", Self.decimalText(Self.clampedRatio(dpr)))) }
        if let fit { items.append(("fit", fit.rawValue)) }
        if let crop { items.append(("crop", crop.rawValue)) }
        if let enlarge { items.append(("enlarge", enlarge ? "1" : "0")) }
        if let format { items.append(("fm", format.rawValue)) }
        if let quality { items.append(("q", String(quality))) }
        return items
    }

    /// The server's rounding of `w * dpr`.
    static func scaled(_ points: Int, by ratio: Double) -> Int {
        Int((Double(points) * ratio).rounded())
    }

    static func clampedRatio(_ ratio: Double) -> Double {
        ratio.isFinite ? min(4, max(1, ratio)) : 1
    }

    /// `2`, `1.5`, `2.625`: at most four decimals, no exponent (the server reads plain decimals only).
    static func decimalText(_ value: Double) -> String {
        let scaled = Int((value * 10_000).rounded())
        let whole = scaled / 10_000
        var fraction = String(scaled % 10_000)
        while fraction.count < 4 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }
}
