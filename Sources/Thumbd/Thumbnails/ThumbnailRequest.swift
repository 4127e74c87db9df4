import Imaging
import ThumbdProtocol

/// What a thumbnail asks for: the transform, and the format the client negotiated when
/// the transform says `fm=auto`.
struct ThumbnailRequest: Sendable {
    var transform: TransformRequest
    /// AVIF or WebP from `Accept` (nil: legacy); used only when the transform negotiates.
    var negotiated: OutputFormat?
    /// Where identities of this request's target are kept between requests, if anywhere.
    var memo: IdentityMemo?
    /// The watermark image, when the options draw one.
    var watermark: WatermarkFile? = nil

    /// The identity for `source` at `version`, from the memo when it holds it (the source's
    /// name, which takes an allocation to spell, is asked for only when an identity is made).
    func identity(of source: @autoclosure () -> SourceName, at version: SourceVersion) -> ThumbnailIdentity {
        guard let memo else { return ThumbnailIdentity(source: source(), version: version, request: self) }
        return memo.identity(version: version, request: self) { ThumbnailIdentity(source: source(), version: version, request: self) }
    }
}
