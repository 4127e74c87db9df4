import ThumbdProtocol

/// What the domain tells of its work as it goes, each label a type: the app records it
/// (`ThumbdMetrics`, Prometheus) and reads the rest (queues, tiers, counters) at scrape.
package protocol ServiceMetrics: Sendable {
    /// One transform run to the end; `format` nil: it failed before its format was settled
    /// (a legacy negotiation, which the image decides).
    func transformed(_ format: OutputFormat?, ok: Bool, seconds: Double)
    /// One video still made, with the bytes it read from the source.
    func videoStill(sourceBytes: Int)
    /// One fetch or revalidation of a remote original.
    func originFetch(_ result: OriginFetchResult, seconds: Double)
    /// One request to an S3 store.
    func s3Request(_ operation: S3Client.Operation, _ result: S3RequestResult, seconds: Double)
}
