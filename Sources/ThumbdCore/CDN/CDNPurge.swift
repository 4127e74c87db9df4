/// The CDN in front of the replicas, asked to drop what it filed under a purge's tags: the
/// outermost tier of a purge (`SourcePurge`), asked once, by the replica that took the purge,
/// after its own tiers and the shared one. Each request is tried up to `attempts` times while
/// the CDN cannot be reached or answers 5xx or 429, each bounded by `timeout`; a refusal (any
/// other 4xx: a wrong token or service) is not tried again. Whatever the CDN answers, the
/// purge of the tiers thumbd keeps stands. Blocking: a worker thread calls it.
package struct CDNPurge: Sendable {
    /// What the CDN said to one request: its status, or why there was none.
    package typealias Transport = @Sendable (CDNPurgeRequest, _ timeoutSeconds: Double) -> Result<Int, CDNPurgeOutcome.Failure>

    package let kind: CDNKind
    package let endpoint: String
    package let service: String
    package let token: String
    package let attempts: Int
    package let timeoutSeconds: Double
    let send: Transport
    /// Purges the CDN confirmed, and those it did not.
    package let purged = Counter(), failed = Counter()

    package init(kind: CDNKind, endpoint: String, service: String, token: String, attempts: Int, timeoutSeconds: Double,
                 send: @escaping Transport) {
        self.kind = kind
        self.endpoint = endpoint
        self.service = service
        self.token = token
        self.attempts = max(1, attempts)
        self.timeoutSeconds = timeoutSeconds
        self.send = send
    }

    package func purge(tags: [String]) -> CDNPurgeOutcome {
        var tried = 0
        for request in CDNPurgeRequest.requests(kind, endpoint: endpoint, service: service, token: token, tags: tags) {
            var last: CDNPurgeOutcome.Failure?
            for _ in 0..<attempts {
                tried += 1
                switch send(request, timeoutSeconds) {
                case .success(let status) where (200..<300).contains(status):
                    last = nil
                case .success(let status):
                    last = .status(status)
                case .failure(let failure):
                    last = failure
                }
                guard let failure = last, failure.isWorthRetrying else { break }
            }
            if let last {
                failed.increment()
                return CDNPurgeOutcome(tags: tags, requests: tried, failure: last)
            }
        }
        purged.increment()
        return CDNPurgeOutcome(tags: tags, requests: tried, failure: nil)
    }
}

/// What a CDN purge came to.
package struct CDNPurgeOutcome: Sendable, Equatable {
    package enum Failure: Error, Sendable, Equatable {
        /// The CDN answered with this status.
        case status(Int)
        /// No answer: it could not be reached, or not within the timeout.
        case unreachable(String)

        /// 5xx, 429 and no answer may pass; another 4xx is the operator's to mend.
        var isWorthRetrying: Bool {
            switch self {
            case .status(let status): status >= 500 || status == 429
            case .unreachable: true
            }
        }

        package var text: String {
            switch self {
            case .status(let status): "answered \(status)"
            case .unreachable(let reason): reason
            }
        }
    }

    package var tags: [String]
    /// Requests sent, retries counted.
    package var requests: Int
    /// Nil: every request was answered 2xx.
    package var failure: Failure?

    package var purged: Bool { failure == nil }
}
