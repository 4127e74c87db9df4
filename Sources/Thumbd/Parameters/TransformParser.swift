import HTTP
import ThumbdCore
import ThumbdProtocol

/// Turns a request's query into the transform it asks for, with the server's presets,
/// dimension limit and default quality.
struct TransformParser: Sendable {
    let presets: [String: String]
    let maxDimension: Int
    let defaultQuality: Int
    var defaultProgressive = false
    /// `watermark.*`: drawn on every output unless a request says otherwise.
    var watermark: Watermark?
    var watermarkOptional = false
    var avifEffort = OutputFormat.defaultAVIFEffort
    /// `output.auto_quality_*`: what `q=auto` searches with.
    var autoQuality = AutoQuality()
    /// `output.auto_quality`: `q=auto` where a request gives no `q`.
    var autoQualityByDefault = false

    /// The transform `query` asks for; nil when it asks for none (the original is served,
    /// unwatermarked: a watermark protects what the server makes, not the files it serves).
    func transform(_ query: QueryParameters) throws(ParameterError) -> TransformRequest? {
        guard TransformRequest.asksForTransform(query) else { return nil }
        return try TransformRequest(query: query, presets: presets, defaults: defaults)
    }

    /// The server's settings a request's missing values come from.
    var defaults: TransformRequest.Defaults {
        .init(maxDimension: maxDimension, quality: defaultQuality, progressive: defaultProgressive, watermark: watermark,
              watermarkOptional: watermarkOptional, avifEffort: avifEffort, autoQuality: autoQuality,
              autoQualityByDefault: autoQualityByDefault)
    }
}
