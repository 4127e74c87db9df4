import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking

/// The session delegate: routes each task's callbacks to its event handler.
final class SessionEventRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let handlers = Locked<[Int: @Sendable (TransportEvent) -> Void]>([:])

    func register(_ taskIdentifier: Int, _ handler: @escaping @Sendable (TransportEvent) -> Void) {
        handlers.withLock { $0[taskIdentifier] = handler }
    }

    func unregister(_ taskIdentifier: Int) {
        _ = handlers.withLock { $0.removeValue(forKey: taskIdentifier) }
    }

    private func handler(_ taskIdentifier: Int) -> (@Sendable (TransportEvent) -> Void)? {
        handlers.withLock { $0[taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        handler(dataTask.taskIdentifier)?(.response(TransportResponse(response)))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handler(dataTask.taskIdentifier)?(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let handler = handlers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        handler?(.finished(error))
    }
}
