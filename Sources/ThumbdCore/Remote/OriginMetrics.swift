/// What the remote origins tell of their fetches, recorded by the app (`ThumbdMetrics`).
package protocol OriginMetrics: Sendable {
    /// One fetch or revalidation of a remote original.
    func originFetch(_ result: OriginFetchResult, seconds: Double)
}
