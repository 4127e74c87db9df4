import Imaging

/// What a thumbnail asks for: the transform, and the format the client negotiated when
/// the transform says `fm=auto`.
struct ThumbnailRequest: Sendable {
    var transform: TransformRequest
    /// AVIF or WebP from `Accept` (nil: legacy); used only when the transform negotiates.
    var negotiated: OutputFormat?
    /// Where identities of this request's target are kept between requests, if anywhere.
    var memo: IdentityMemo?

    func identity(of source: SourceName, at version: SourceVersion) -> ThumbnailIdentity {
        memo?.identity(source: source, version: version, request: self)
            ?? ThumbnailIdentity(source: source, version: version, request: self)
    }
}
