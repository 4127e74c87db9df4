import Imaging
import ThumbdProtocol

/// What the thumbnail service tells of its work as it goes, each label a type: the app records
/// it (`ThumbdMetrics`, Prometheus) and reads the rest (queues, tiers, counters) at scrape. The
/// stores tell theirs through `OriginMetrics` and `S3Metrics`.
package protocol ServiceMetrics: Sendable {
    /// One transform run to the end; `format` nil: it failed before its format was settled
    /// (a legacy negotiation, which the image decides).
    func transformed(_ format: OutputFormat?, ok: Bool, seconds: Double)
    /// One video still made, with the bytes it read from the source.
    func videoStill(sourceBytes: Int)
    /// One `q=auto` search: the quality it chose for `format` and the encodings it took.
    func autoQuality(_ format: OutputFormat, _ choice: QualitySearch.Choice)
}
