import Cache
import Imaging
import ThumbdProtocol

/// A thumbnail's identity, built here and nowhere else: its cache key, the options its
/// transform runs with and its ETag. The key covers the source and its version, the
/// normalized options and the format tag, so a changed source never hits an old entry, and
/// equal requests on any replica, after any restart, share one key and one ETag. A class:
/// memoized identities are handed to every hit, and a reference costs one retain where the
/// options' many fields cost one each.
package final class ThumbnailIdentity: Sendable {
    package let key: CacheKey
    /// Resolved for the source's format; the format is nil only for a legacy negotiation,
    /// which the transform settles from the image.
    package let options: TransformOptions
    package let formatTag: FormatTag
    /// The versions the output depends on: the source's, and the watermark's when drawn.
    package let versions: String

    package init(source: SourceName, version: SourceVersion, request: ThumbnailRequest) {
        var options = request.transform.options.resolved(for: version.format)
        let tag: FormatTag
        if request.transform.negotiatesFormat {
            // Resolving for the source dropped what its default format cannot use (pr for a
            // WebP source, anim for a JPEG one): the negotiated format decides again.
            options.format = request.negotiated
            options.progressive = request.transform.options.progressive
            options.animated = request.transform.options.animated
            options.avifEffort = request.transform.options.avifEffort
            options.normalize()
            tag = .negotiated(request.negotiated)
        } else {
            tag = .chosen(options.format)
        }
        self.options = options
        formatTag = tag
        versions = ThumbnailKeys.versions(version.tag.text, watermark: request.watermark?.version)
        key = ThumbnailKeys.variant(source, version: version.tag, options: options, format: tag, watermark: request.watermark?.version)
    }

    /// What joins concurrent requests before the source's version is known (a remote
    /// original not yet fetched).
    package static func flightKey(source: SourceName, request: ThumbnailRequest) -> String {
        ThumbnailKeys.flight(source, options: request.transform.options,
                             negotiated: request.transform.negotiatesFormat ? .negotiated(request.negotiated) : nil,
                             watermark: request.watermark?.version)
    }

    /// The ETag of a made thumbnail: the versions it depends on (`versions`), its final
    /// options (format settled) and, when it was resized from a decode shared with other sizes,
    /// that decode's size (another resampling path gives other bytes: never one ETag for both).
    package static func etag(sourceVersion: String, options: TransformOptions, sharedDecode: (width: Int, height: Int)? = nil) -> String {
        // "shared2": levels read down to the size itself (the first rule kept them twice it).
        let path = sharedDecode.map { "|shared2=\($0.width)x\($0.height)" } ?? ""
        return "t" + StableHash.hex128(sourceVersion + path + "|" + options.canonicalText)
    }

    /// The ETag of a remote original served as it is.
    package static func originalETag(sourceVersion: String) -> String {
        "o" + StableHash.hex128(sourceVersion)
    }
}
