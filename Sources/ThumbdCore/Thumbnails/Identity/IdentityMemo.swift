import Locking
import Synchronization

/// The identities one request target had, kept for the latest source version: one, or one
/// per negotiated format for `fm=auto`. A grid asks for the same URLs again and again, and
/// an identity (options text, key text, its hash) costs more than the lookup it serves.
package final class IdentityMemo: Sendable {
    private let kept = Locked<[(version: String, negotiated: FormatTag?, identity: ThumbnailIdentity)]>([])

    package init() {}

    /// The identity for this source version and request, made (by `make`) once per version and format.
    package func identity(version: SourceVersion, request: ThumbnailRequest, make: () -> ThumbnailIdentity) -> ThumbnailIdentity {
        let negotiated: FormatTag? = request.transform.negotiatesFormat ? .negotiated(request.negotiated) : nil
        let versions = ThumbnailKeys.versions(version.tag.text, watermark: request.watermark?.version)
        let known = kept.withLock { entries in
            entries.first { $0.version == versions && $0.negotiated == negotiated }?.identity
        }
        if let known { return known }
        let identity = make()
        kept.withLock { entries in
            // A new source (or watermark) version replaces every identity of the old one.
            entries.removeAll { $0.version != versions }
            entries.append((versions, negotiated, identity))
        }
        return identity
    }
}
