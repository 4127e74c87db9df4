/// What an S3 client tells of its requests, recorded by the app (`ThumbdMetrics`).
package protocol S3Metrics: Sendable {
    /// One request to an S3 store.
    func s3Request(_ operation: S3Client.Operation, _ result: S3RequestResult, seconds: Double)
}
