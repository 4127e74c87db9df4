import HTTP
import ThumbdProtocol

/// Turns a request's query into the transform it asks for, with the server's presets,
/// dimension limit and default quality.
struct TransformParser: Sendable {
    let presets: [String: String]
    let maxDimension: Int
    let defaultQuality: Int
    var defaultProgressive = false

    /// The transform `query` asks for; nil when it asks for none (the original is served).
    func transform(_ query: QueryParameters) throws(ParameterError) -> TransformRequest? {
        guard TransformRequest.asksForTransform(query) else { return nil }
        return try TransformRequest(query: query, presets: presets, maxDimension: maxDimension, defaultQuality: defaultQuality,
                                    defaultProgressive: defaultProgressive)
    }
}
