import HTTP
import Imaging

/// The transform a request asks for: its query parameters (and preset) validated and
/// normalized into `TransformOptions`. Pure.
public struct TransformRequest: Sendable, Equatable {
    public var options: TransformOptions
    /// `fm=auto`: the format is chosen per request from `Accept` (and `Vary: Accept` sent).
    public var negotiatesFormat: Bool
    /// `w=auto` or `dpr=auto`: sizes come from each request's Client Hints (see `resolved(with:)`);
    /// until then `options` holds the sizes without them.
    public var hints: HintUse?

    /// Which sizes wait for Client Hints, and the requested sizes they apply to.
    public struct HintUse: Sendable, Equatable {
        /// `w=auto`: the width is `Sec-CH-Width` (already in device pixels).
        public var width: Bool
        /// `dpr=auto`: the ratio is `Sec-CH-DPR`, clamped to 1...4 (1 without the hint).
        public var dpr: Bool
        /// `dpr` given as a number (with `w=auto` alone).
        public var fixedDPR: Double
        /// `w` and `h` as asked, before any ratio.
        public var width0: Int?
        public var height0: Int?
        public var maxDimension: Int
    }

    public static let parameterNames: Set<String> = ["w", "h", "dpr", "fit", "crop", "enlarge", "fm", "q", "p", "s", "pr", "anim"]

    /// True when the query asks for any transform at all (a lone signature does not).
    public static func asksForTransform(_ query: QueryParameters) -> Bool {
        query.pairs.contains { $0.name != "s" }
    }

    /// `maxDimension` bounds `w` and `h` (after `dpr`); `defaultQuality` is `q` when none is given.
    public init(query: QueryParameters, presets: [String: String] = [:], maxDimension: Int,
                defaultQuality: Int = OutputFormat.defaultQuality, defaultProgressive: Bool = false) throws(ParameterError) {
        var values = try Self.collect(query.pairs, allowPreset: true)
        if let name = values.removeValue(forKey: "p") {
            guard let preset = presets[name] else {
                throw ParameterError(parameter: "p", detail: "no preset named '\(name)'")
            }
            let presetPairs: QueryParameters
            do {
                presetPairs = try QueryParameters(parsing: Substring(preset))
            } catch {
                throw ParameterError(parameter: "p", detail: "preset '\(name)' is malformed")
            }
            // Explicit parameters override the preset's.
            for (key, value) in try Self.collect(presetPairs.pairs, allowPreset: false) where values[key] == nil {
                values[key] = value
            }
        }
        values.removeValue(forKey: "s")

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

        let autoWidth = values["w"] == "auto"
        let autoDPR = values["dpr"] == "auto"
        if autoWidth { values.removeValue(forKey: "w") }
        var width = try integer("w", in: 1...maxDimension)
        var height = try integer("h", in: 1...maxDimension)
        var fixedDPR = 1.0
        if !autoDPR, let text = values["dpr"] {
            guard let dpr = Self.decimal(text), dpr >= 1, dpr <= 4 else {
                throw ParameterError(parameter: "dpr", detail: "dpr must be a number in 1...4 or auto, got '\(text)'")
            }
            fixedDPR = dpr
        }
        if autoWidth || autoDPR {
            hints = HintUse(width: autoWidth, dpr: autoDPR, fixedDPR: fixedDPR, width0: width, height0: height,
                            maxDimension: maxDimension)
        } else if values["dpr"] != nil {
            (width, height) = try Self.scaled(width, height, by: fixedDPR, maxDimension: maxDimension)
        }
        let fit = try choice("fit", TransformOptions.Fit.self) ?? .contain
        let crop = try choice("crop", TransformOptions.Crop.self) ?? .center
        var enlarge = false
        if let text = values["enlarge"] {
            guard text == "0" || text == "1" else { throw ParameterError(parameter: "enlarge", detail: "enlarge must be 0 or 1, got '\(text)'") }
            enlarge = text == "1"
        }
        var format: OutputFormat?
        var negotiates = false
        if let text = values["fm"] {
            if text == "auto" {
                negotiates = true
            } else if let f = OutputFormat(rawValue: text), f != .gif {
                format = f
            } else {
                throw ParameterError(parameter: "fm", detail: "fm must be one of jpeg, png, webp, avif, auto, got '\(text)'")
            }
        }
        let quality = try integer("q", in: 1...100) ?? defaultQuality
        let progressive = try flag("pr") ?? defaultProgressive
        let animated = try flag("anim") ?? false
        options = TransformOptions(width: width, height: height, fit: fit, crop: crop, enlarge: enlarge, format: format,
                                   quality: quality, progressive: progressive, animated: animated)
        negotiatesFormat = negotiates
    }

    /// `w` and `h` times a ratio, as the server rounds them, within the dimension limit.
    static func scaled(_ width: Int?, _ height: Int?, by dpr: Double, maxDimension: Int) throws(ParameterError) -> (Int?, Int?) {
        let w = width.map { Int((Double($0) * dpr).rounded()) }
        let h = height.map { Int((Double($0) * dpr).rounded()) }
        if max(w ?? 0, h ?? 0) > maxDimension {
            throw ParameterError(parameter: "dpr", detail: "w or h times dpr is over the limit of \(maxDimension) pixels")
        }
        return (w, h)
    }

    /// The sizes of a request that waits for Client Hints, taken from this request's hints;
    /// itself when it uses none. `w=auto` without `Sec-CH-Width` is a 400 naming `w`.
    public func resolved(with readHints: @autoclosure () -> ClientHints) throws(ParameterError) -> (TransformRequest, dpr: Double?) {
        guard let use = self.hints else { return (self, nil) }
        let hints = readHints()
        let dpr = use.dpr ? hints.clampedDPR : use.fixedDPR
        var resolved = self
        resolved.hints = nil
        var width: Int?, height: Int?
        (width, height) = try Self.scaled(use.width0, use.height0, by: dpr, maxDimension: use.maxDimension)
        if use.width {
            guard let hinted = hints.width else {
                throw ParameterError(parameter: "w", detail: "w=auto needs the Sec-CH-Width client hint, which the request did not send")
            }
            guard (1...use.maxDimension).contains(hinted) else {
                throw ParameterError(parameter: "w", detail: "Sec-CH-Width \(hinted) is outside 1...\(use.maxDimension)")
            }
            width = hinted
        }
        resolved.options.width = width
        resolved.options.height = height
        resolved.options.normalize()
        return (resolved, use.dpr ? dpr : nil)
    }

    /// Names to values, refusing unknown and repeated names.
    private static func collect(_ pairs: [(name: String, value: String)], allowPreset: Bool) throws(ParameterError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard parameterNames.contains(name), allowPreset || (name != "p" && name != "s") else {
                throw .unknown(name)
            }
            guard values[name] == nil else { throw .repeated(name) }
            values[name] = value
        }
        return values
    }

    /// `2`, `1.5`, `2.25`: plain decimals only (no exponents, signs or spaces).
    static func decimal(_ text: String) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 6 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
        else { return nil }
        return Double(text)
    }
}
