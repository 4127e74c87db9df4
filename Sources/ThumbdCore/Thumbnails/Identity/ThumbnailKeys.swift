import Cache
import ThumbdProtocol

/// The grammar of every key the tiers and the flights use, spelled here and nowhere else:
///
///     variant   <source>|<version>|<options>|<format tag>[|wm=<watermark version>]
///     faces     <source>[|still=<still>]|<version>|faces1
///     flight    <source>|<options>|<format tag, or ->[|wm=<watermark version>]
///     original  <source>|original
///     batch     <source>|<page>
///     header    <source>|<version>|<page>
///
/// `<source>` is `SourceName.text` (`img|`, `proxy|` or `s3|`, with `%` and `|` escaped), so a
/// purge finds every stored key of a source by `SourceName.keyPrefix`. Variant and faces keys
/// are stored (memory, disk and shared tiers); the flight, original and batch keys join
/// concurrent work, and the header key a vector page's memo. The texts are those earlier builds
/// wrote: their disk and shared entries keep hitting.
package enum ThumbnailKeys {
    /// A thumbnail stored in the tiers.
    package static func variant(_ source: SourceName, version: VersionTag, options: TransformOptions, format: FormatTag,
                                watermark: String?) -> CacheKey {
        CacheKey("\(source.text)|\(version.text)|\(options.canonicalText)|\(format.text)" + watermarked(watermark))
    }

    /// The versions an output depends on: the source's, and the watermark's when one is drawn.
    package static func versions(_ source: String, watermark: String?) -> String {
        // Read on every hit (`IdentityMemo`): no new string without a watermark.
        watermark == nil ? source : source + watermarked(watermark)
    }

    /// Joins concurrent misses before the source's version is known (a remote original not yet
    /// fetched): the source, the options and the format tag (`-` when the format is chosen).
    package static func flight(_ source: SourceName, options: TransformOptions, negotiated: FormatTag?, watermark: String?) -> String {
        "\(source.text)|\(options.canonicalText)|\(negotiated?.text ?? "-")" + watermarked(watermark)
    }

    /// Joins concurrent requests for a source as it is (a remote original without parameters).
    package static func original(_ source: SourceName) -> String {
        source.text + "|original"
    }

    /// The misses of one source and page made together from one load (`SourceBatches`).
    package static func batch(_ source: SourceName, page: Int) -> String {
        "\(source.text)|\(page)"
    }

    /// The faces found in a source version, or in one still of it (a video's poster or
    /// preview, a drawing of a page at one size: their boxes hold for those pixels only).
    /// After the source's prefix and version as a thumbnail's key, never equal to one (those go
    /// on with their options). `model` is the detector's `keyTag`: faces the Haar cascades found
    /// keep the key earlier builds gave them (`faces1`), the CNN's have their own.
    package static func faces(_ source: SourceName, still: LoadedSource.Still?, version: VersionTag, model: String) -> CacheKey {
        let name = still.map { source.text + "|still=" + text($0) } ?? source.text
        return CacheKey("\(name)|\(version.text)|" + (model == "haar" ? "faces1" : "faces-" + model))
    }

    /// A vector page's header, kept per source version and page.
    package static func header(_ source: SourceName, version: VersionTag, page: Int) -> String {
        "\(source.text)|\(version.text)|\(page)"
    }

    /// A still as keys name it. A video's kind is written as Swift describes it, as the first
    /// build with video faces did: changing it would only find faces again.
    static func text(_ still: LoadedSource.Still) -> String {
        switch still {
        case .video(let kind): String(describing: kind)
        case .drawing(let width, let height): "drawn=\(width)x\(height)"
        }
    }

    private static func watermarked(_ version: String?) -> String {
        version.map { "|wm=" + $0 } ?? ""
    }
}
