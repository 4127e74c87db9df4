import Clocks
import Logging

/// The object store behind the shared tier (`cache.shared.root: s3://BUCKET/PREFIX`): one
/// bucket and a prefix, every request made through one `StoreHealth`. A store that fails or
/// is slow is skipped for a while (`pause`), then tried again by the next request alone, so
/// the tier never holds a request longer than its own short timeout. Blocking: worker threads
/// and the tier's own threads call it.
package final class SharedStore: Sendable {
    package enum Defaults {
        /// `cache.shared.timeout`: a shared hit is worth a short wait, never a long one.
        package static let timeout = 1.0
        /// How long the tier is skipped after a failure before one request tries again.
        package static let pause = 5.0
    }

    /// What one request came to.
    package enum Outcome {
        case answered(S3Response)
        /// Not asked: the store failed lately, or a request has waited on it too long.
        case skipped
        case failed(S3Error)
    }

    package let client: S3Client
    /// Every object of the tier is under it: empty, or ending with `/`.
    package let prefix: String
    package let health: StoreHealth
    private let logger: Logger

    package init(client: S3Client, clock: any MonotonicClock, logger: Logger) {
        self.client = client
        let prefix = client.location.prefix
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
        // A request still waiting after half the timeout makes the others skip the tier.
        self.health = StoreHealth(pause: Defaults.pause, slowAfter: client.timeout / 2, clock: clock)
        self.logger = logger
    }

    /// `request` through the store's health: a 5xx or no answer counts as a failure.
    package func ask(_ request: (S3Client) throws(S3Error) -> S3Response) -> Outcome {
        guard case .success(let ticket) = health.admit() else { return .skipped }
        do throws(S3Error) {
            let response = try request(client)
            let failed = response.status >= 500
            report(health.finished(ticket, failed: failed), failure: failed ? "it answered \(response.status)" : nil)
            return failed ? .failed(response.failure) : .answered(response)
        } catch {
            let outage = if case .unavailable = error { true } else { false }
            report(health.finished(ticket, failed: outage), failure: "\(error)")
            return .failed(error)
        }
    }

    /// Every key under `prefix` + `under`, with the store's LastModified (seconds), or nil
    /// when the listing failed or was skipped.
    package func list(under: String) -> [S3ListPage.Object]? {
        var objects: [S3ListPage.Object] = []
        var token: String?
        repeat {
            guard case .success(let ticket) = health.admit() else { return nil }
            do throws(S3Error) {
                let page = try client.list(prefix: prefix + under, after: token)
                report(health.finished(ticket, failed: false), failure: nil)
                objects += page.objects
                token = page.nextToken
            } catch {
                let outage = if case .unavailable = error { true } else { false }
                report(health.finished(ticket, failed: outage), failure: "\(error)")
                return nil
            }
        } while token != nil
        return objects
    }

    private func report(_ change: StoreHealth.Change, failure: String?) {
        switch change {
        case .wentDown:
            logger.warning("the shared cache tier at \(client.endpoint.description) is unavailable (\(failure ?? "failed")); skipping it until it answers")
        case .cameBack(let seconds):
            logger.notice("the shared cache tier answers again after \(Int(seconds)) s")
        case .none: break
        }
    }
}
