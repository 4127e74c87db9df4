import Imaging
import ThumbdProtocol

/// What a thumbnail asks for: the transform, and the format the client negotiated when
/// the transform says `fm=auto`.
package struct ThumbnailRequest: Sendable {
    package var transform: TransformRequest
    /// AVIF or WebP from `Accept` (nil: legacy); used only when the transform negotiates.
    package var negotiated: OutputFormat?
    /// Where identities of this request's target are kept between requests, if anywhere.
    package var memo: IdentityMemo?
    /// The watermark image, when the options draw one.
    package var watermark: WatermarkFile? = nil

    /// The identity for `source` at `version`, from the memo when it holds it (the source's
    /// name, which takes an allocation to spell, is asked for only when an identity is made).
    package func identity(of source: @autoclosure () -> SourceName, at version: SourceVersion) -> ThumbnailIdentity {
        guard let memo else { return ThumbnailIdentity(source: source(), version: version, request: self) }
        return memo.identity(version: version, request: self) { ThumbnailIdentity(source: source(), version: version, request: self) }
    }

    package init(transform: TransformRequest, negotiated: OutputFormat? = nil, memo: IdentityMemo? = nil, watermark: WatermarkFile? = nil) {
        self.transform = transform
        self.negotiated = negotiated
        self.memo = memo
        self.watermark = watermark
    }
}
