import HTTP
import Imaging

/// The transform a request asks for: its query parameters (and preset) validated and
/// normalized into `TransformOptions`. Pure.
public struct TransformRequest: Sendable, Equatable {
    public var options: TransformOptions
    /// `fm=auto`: the format is chosen per request from `Accept` (and `Vary: Accept` sent).
    public var negotiatesFormat: Bool

    public static let parameterNames: Set<String> = ["w", "h", "dpr", "fit", "crop", "enlarge", "fm", "q", "p", "s"]

    /// True when the query asks for any transform at all (a lone signature does not).
    public static func asksForTransform(_ query: QueryParameters) -> Bool {
        query.pairs.contains { $0.name != "s" }
    }

    /// `maxDimension` bounds `w` and `h` (after `dpr`); `defaultQuality` is `q` when none is given.
    public init(query: QueryParameters, presets: [String: String] = [:], maxDimension: Int,
                defaultQuality: Int = OutputFormat.defaultQuality) throws(ParameterError) {
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

        var width = try integer("w", in: 1...maxDimension)
        var height = try integer("h", in: 1...maxDimension)
        if let text = values["dpr"] {
            guard let dpr = Self.decimal(text), dpr >= 1, dpr <= 4 else {
                throw ParameterError(parameter: "dpr", detail: "dpr must be a number in 1...4, got '\(text)'")
            }
            width = width.map { Int((Double($0) * dpr).rounded()) }
            height = height.map { Int((Double($0) * dpr).rounded()) }
            if max(width ?? 0, height ?? 0) > maxDimension {
                throw ParameterError(parameter: "dpr", detail: "w or h times dpr is over the limit of \(maxDimension) pixels")
            }
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
        options = TransformOptions(width: width, height: height, fit: fit, crop: crop, enlarge: enlarge, format: format, quality: quality)
        negotiatesFormat = negotiates
    }

    /// Names to values, refusing unknown and repeated names.
    private static func collect(_ pairs: [(name: String, value: String)], allowPreset: Bool) throws(ParameterError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard parameterNames.contains(name), allowPreset || (name != "p" && name != "s") else {
                throw ParameterError(parameter: name, detail: "unknown parameter '\(name)'")
            }
            guard values[name] == nil else { throw ParameterError(parameter: name, detail: "parameter '\(name)' is repeated") }
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
