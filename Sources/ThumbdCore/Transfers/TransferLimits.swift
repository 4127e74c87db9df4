/// The bounds of one read from a store thumbd does not own (an S3 bucket, an origin, the
/// shared tier): a deadline for the whole transfer and a rate its body must keep, so that no
/// store can hold a worker, a transfer thread or a client past them. Config keys:
/// `origins.timeout`, `origins.min_rate`, `origins.stream_timeout` (`cache.shared.timeout` for
/// the shared tier's deadline).
package struct TransferLimits: Sendable, Equatable {
    package enum Defaults {
        /// `origins.min_rate`: far below any store or origin on a working link (a phone on 3G
        /// reads about 50 KB/s), far above a stalled or trickling one.
        package static let minRate = 16 << 10
        /// The span the rate is judged over: a short pause of a healthy store passes.
        package static let window = 5.0
        /// `origins.stream_timeout`: the store's own time for a streamed original's body.
        package static let streamTimeout = 3600.0
    }

    /// Seconds for the whole transfer; for a streamed original, until its head goes on.
    package var timeout: Double
    /// Bytes a second the body must keep over any `window` once the answer began; 0: no rate.
    package var minRate: Int
    package var window: Double
    /// Seconds of the store's own time (not the client's) a streamed body may take after its
    /// head went on.
    package var streamTimeout: Double

    package init(timeout: Double, minRate: Int = Defaults.minRate, window: Double = Defaults.window,
                 streamTimeout: Double = Defaults.streamTimeout) {
        self.timeout = timeout
        self.minRate = minRate
        self.window = window
        self.streamTimeout = streamTimeout
    }
}
