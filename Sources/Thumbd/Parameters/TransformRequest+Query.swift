import HTTP
import ThumbdCore
import ThumbdProtocol

extension TransformRequest {
    /// True when the query asks for any transform at all (a lone signature or expiry does not).
    public static func asksForTransform(_ query: QueryParameters) -> Bool {
        query.pairs.contains { $0.name != ThumbnailOptions.signatureParameter && $0.name != ThumbnailOptions.expiryParameter }
    }

    /// The transform a request's query asks for, its preset (`p`) expanded from `presets`:
    /// explicit parameters override the preset's, and every value is checked after merging.
    /// `maxDimension` bounds `w` and `h` (after `dpr`); `defaultQuality` is `q` when none is given.
    public init(query: QueryParameters, presets: [String: String] = [:], maxDimension: Int,
         defaultQuality: Int = OutputFormat.defaultQuality, defaultProgressive: Bool = false) throws(ParameterError) {
        try self.init(query: query, presets: presets,
                      defaults: Defaults(maxDimension: maxDimension, quality: defaultQuality, progressive: defaultProgressive))
    }

    public init(query: QueryParameters, presets: [String: String] = [:], defaults: Defaults) throws(ParameterError) {
        var values = try ThumbnailOptions.collect(query.pairs, allowingPreset: true)
        if let name = values.removeValue(forKey: ThumbnailOptions.presetParameter) {
            guard let preset = presets[name] else {
                throw ParameterError(parameter: "p", detail: "no preset named '\(name)'")
            }
            let presetPairs: QueryParameters
            do {
                presetPairs = try QueryParameters(parsing: Substring(preset))
            } catch {
                throw ParameterError(parameter: "p", detail: "preset '\(name)' is malformed")
            }
            for (key, value) in try ThumbnailOptions.collect(presetPairs.pairs, allowingPreset: false) where values[key] == nil {
                values[key] = value
            }
        }
        values.removeValue(forKey: ThumbnailOptions.signatureParameter)
        values.removeValue(forKey: ThumbnailOptions.expiryParameter)
        try self.init(ThumbnailOptions(values: values, maxDimension: defaults.maxDimension), defaults: defaults)
    }

    /// The sizes of a request that waits for Client Hints, taken from this request's hints
    /// (read only when it uses them); itself when it uses none.
    func resolved(with readHints: @autoclosure () -> ClientHints) throws(ParameterError) -> (TransformRequest, dpr: Double?) {
        guard hints != nil else { return (self, nil) }
        let hints = readHints()
        return try resolved(hintedWidth: hints.width, hintedDPR: hints.dpr)
    }
}

extension QueryParameters {
    /// Refuses the first parameter whose name is not in `names` (any, when `names` is empty).
    func refuse(allBut names: Set<String>) throws(ParameterError) {
        if let other = pairs.first(where: { !names.contains($0.name) }) { throw .unknown(other.name) }
    }
}
