import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession data task behind `TransportTask`.
final class URLSessionTransfer: TransportTask, @unchecked Sendable {
    private let task: URLSessionDataTask
    private let router: SessionEventRouter

    init(task: URLSessionDataTask, router: SessionEventRouter) {
        self.task = task
        self.router = router
    }

    func cancel() {
        // Unregister first: the contract is "no events after cancel".
        router.unregister(task.taskIdentifier)
        task.cancel()
    }

    func setPriority(_ priority: Float) {
        task.priority = priority
    }
}
