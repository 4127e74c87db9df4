import ThumbdKit

/// The figures of one strategy: one value of the `RESULT` JSON object (keys as named here).
struct StrategyFigures: Encodable, Sendable {
    /// Visible-to-shown percentiles over the cells that were filled while on screen, in
    /// simulated milliseconds; null when none was.
    struct Latency: Encodable, Sendable {
        var p50Ms: Double?
        var p95Ms: Double?
        var p99Ms: Double?

        init(seconds: [Double]) {
            let sorted = seconds.sorted()
            p50Ms = Self.milliseconds(Self.percentile(sorted, 50))
            p95Ms = Self.milliseconds(Self.percentile(sorted, 95))
            p99Ms = Self.milliseconds(Self.percentile(sorted, 99))
        }

        /// Nearest rank.
        static func percentile(_ sorted: [Double], _ p: Double) -> Double? {
            guard !sorted.isEmpty else { return nil }
            let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
            return sorted[min(sorted.count - 1, max(0, rank - 1))]
        }

        static func milliseconds(_ seconds: Double?) -> Double? {
            seconds.map { ($0 * 10_000).rounded() / 10 }
        }

        enum CodingKeys: String, CodingKey {
            case p50Ms, p95Ms, p99Ms
        }

        // Nulls written out, so every strategy's object has the same keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            for (key, value) in [(CodingKeys.p50Ms, p50Ms), (CodingKeys.p95Ms, p95Ms), (CodingKeys.p99Ms, p99Ms)] {
                if let value { try container.encode(value, forKey: key) } else { try container.encodeNil(forKey: key) }
            }
        }
    }

    /// How cells were filled, by `LoadOutcome`.
    struct Outcomes: Encodable, Sendable {
        var memory = 0
        var disk = 0
        var revalidated = 0
        var resumed = 0
        var network = 0

        mutating func count(_ outcome: LoadOutcome) {
            switch outcome {
            case .memory: memory += 1
            case .disk: disk += 1
            case .revalidated: revalidated += 1
            case .resumed: resumed += 1
            case .network: network += 1
            }
        }
    }

    /// One opening of a full-screen view.
    struct FullScreenOpen: Encodable, Sendable {
        var item: Int
        var attempt: Int
        /// Null: closed (or timed out) before its image came.
        var shownAfterMs: Double?
        var outcome: String?

        enum CodingKeys: String, CodingKey {
            case item, attempt, shownAfterMs, outcome
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(item, forKey: .item)
            try container.encode(attempt, forKey: .attempt)
            if let shownAfterMs { try container.encode(shownAfterMs, forKey: .shownAfterMs) } else { try container.encodeNil(forKey: .shownAfterMs) }
            if let outcome { try container.encode(outcome, forKey: .outcome) } else { try container.encodeNil(forKey: .outcome) }
        }
    }

    var images: Int
    /// How long the script took, in simulated seconds.
    var simulatedSeconds: Double
    /// Body bytes that crossed the link.
    var bytesDownloaded: Int
    var requests: Int
    var visibleToShown: Latency
    /// Times a cell came on screen for an item.
    var cellAppearances: Int
    /// Of those, the times its own image was shown while it was on screen.
    var cellsFilled: Int
    /// The share of appearances that ended (scrolled out, or the run ended) without the image.
    var neverFilledShare: Double
    var wrongImages: Int
    /// Bytes of transfers for images no longer in view when they completed or were cancelled.
    var bytesScrolledAway: Int
    /// Bytes of transfers for images not yet in view when they ended (prefetching).
    var bytesPrefetchedAhead: Int
    /// Of those, for images that never came into view.
    var bytesPrefetchedNeverShown: Int
    /// Bytes not downloaded again thanks to `Range` resumes (completed 206s).
    var bytesSavedByResume: Int
    var resumes: Int
    /// How cells were filled on the way back (the fling to the top and down to the middle).
    var returnTrip: Outcomes
    var fullScreen: [FullScreenOpen]
    var transfersCancelled: Int
    var failures: Int
}
