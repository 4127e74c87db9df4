import Clocks
import Locking
import Logging

/// The object store behind the shared tier (`cache.shared.root: s3://BUCKET/PREFIX`): one
/// bucket and a prefix, every request made through one `StoreHealth`. Each request is bounded
/// by the tier's own short timeout and the minimum rate; once failures across requests say the
/// store is down, the tier is skipped until a probe finds it answering again, so the tier never
/// holds a request longer than its own timeout. Blocking: worker threads and the tier's own
/// threads call it.
package final class SharedStore: Sendable {
    package enum Defaults {
        /// `cache.shared.timeout`: a shared hit is worth a short wait, never a long one.
        package static let timeout = 1.0
    }

    /// What one request came to.
    package enum Outcome {
        case answered(S3Response)
        /// Not asked: the store is down.
        case skipped
        case failed(S3Error)
    }

    /// Why a request that was skipped (`Outcome.skipped`) was not asked.
    package static let down = S3Error.unavailable("the shared tier's store is down")

    package let client: S3Client
    /// Where each kind of object lives under the tier's prefix.
    package let layout: SharedLayout
    package let health: StoreHealth
    private let logger: Logger
    private let clock: any MonotonicClock
    /// When a denial was last logged: at most one line a minute.
    private let lastDenialLogged = Locked(-Double.infinity)

    package init(client: S3Client, clock: any MonotonicClock, logger: Logger) {
        self.logger = logger
        self.clock = clock
        self.client = client
        layout = SharedLayout(prefix: client.location.prefix)
        self.health = StoreHealth(clock: clock, probe: { _ in client.probe() },
                                  report: StoreHealth.Change.logging("the shared cache tier at \(client.endpoint.description)", meanwhile: "skipping it",
                                                   to: logger))
    }

    /// `request` about `subject` (an object's key) through the store's health: a 5xx, no answer
    /// or a cut transfer counts as a failure; any other status is an answer.
    package func ask(_ subject: String, _ request: (S3Client) throws(S3Error) -> S3Response) -> Outcome {
        var skipped = false
        let ran = health.run(subject, refused: { _ in skipped = true; return Self.down }, isOutage: \.isUnavailable,
                             failedAnswer: { $0.status >= 500 }) { _ throws(S3Error) in try request(client) }
        switch ran {
        case .success(let response) where response.status >= 500: return .failed(response.failure)
        case .success(let response):
            if response.isDenial { logDenial(response) }
            return .answered(response)
        case .failure where skipped: return .skipped
        case .failure(let error): return .failed(error)
        }
    }

    /// A denial says the keys or the bucket's policy are wrong: the store answers, so it never
    /// counts as an outage, and the operator is told (once a minute) what it said.
    private func logDenial(_ response: S3Response) {
        let now = clock.now()
        let due = lastDenialLogged.withLock { last -> Bool in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        if due {
            logger.error("the shared cache tier's store refused a request (\(response.failure.refusalText)): check cache.shared.s3's keys and the bucket's policy")
        }
    }

    /// Every object in `folder`, with the store's LastModified (seconds), or why they could
    /// not be listed (a refusal, an outage, the store down).
    package func list(_ folder: SharedLayout.Folder) -> Result<[S3ListPage.Object], S3Error> {
        var objects: [S3ListPage.Object] = []
        var token: String?
        repeat {
            let page = health.run("list " + folder.path, refused: { _ in Self.down }, isOutage: \.isUnavailable) { _ throws(S3Error) in
                try client.list(prefix: layout.key(of: folder), after: token)
            }
            switch page {
            case .success(let page):
                objects += page.objects
                token = page.nextToken
            case .failure(let error): return .failure(error)
            }
        } while token != nil
        return .success(objects)
    }
}
