import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: `URLSessionDataTask`s driven by a data delegate that forwards the
/// head, each chunk and the completion as they arrive. URLSession's own cache is off (ThumbdKit
/// keeps its caches and sends its own conditional and range requests).
public final class URLSessionTransport: ThumbdTransport, @unchecked Sendable {
    /// One transport for callers that do not bring their own (listing pages, quick scripts).
    public static let shared = URLSessionTransport()

    private let session: URLSession
    private let router: SessionEventRouter

    /// `maximumConnectionsPerHost` bounds parallel transfers to one server; `timeout` is the
    /// idle time after which a request fails.
    public init(maximumConnectionsPerHost: Int = 6, timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.timeoutIntervalForRequest = timeout
        let queue = OperationQueue()
        queue.name = "ThumbdKit.URLSessionTransport"
        // One delegate queue: each transfer's events arrive in order, never concurrently.
        queue.maxConcurrentOperationCount = 1
        let router = SessionEventRouter()
        self.router = router
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit {
        // The session keeps its delegate alive until it is invalidated.
        session.invalidateAndCancel()
    }

    public func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask {
        let task = session.dataTask(with: request)
        router.register(task.taskIdentifier, events)
        task.priority = priority
        task.resume()
        return URLSessionTransfer(task: task, router: router)
    }
}
