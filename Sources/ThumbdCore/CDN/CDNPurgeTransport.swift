import Dispatch
import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a CDN's purge requests with URLSession: a few requests per purge to an address the
/// operator configured (not a user's URL, so libcurl's connect-time address checks that
/// origins get are not needed here). No proxy, no cookies, no cache; the calling worker waits
/// at most the timeout for each.
package enum CDNPurgeTransport {
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    package static func send(_ request: CDNPurgeRequest, timeoutSeconds: Double) -> Result<Int, CDNPurgeOutcome.Failure> {
        guard let url = URL(string: request.url) else { return .failure(.unreachable("not a URL: \(request.url)")) }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        urlRequest.httpMethod = request.method
        for field in request.fields { urlRequest.setValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let answered = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Int, CDNPurgeOutcome.Failure>>(.failure(.unreachable("no answer")))
        let task = session.dataTask(with: urlRequest) { _, response, error in
            if let status = (response as? HTTPURLResponse)?.statusCode {
                outcome.withLock { $0 = .success(status) }
            } else {
                outcome.withLock { $0 = .failure(.unreachable(error.map { "\($0.localizedDescription)" } ?? "no answer")) }
            }
            answered.signal()
        }
        task.resume()
        // URLSession's own timeout is for idle time; this bounds the whole exchange.
        if answered.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            task.cancel()
            return .failure(.unreachable("no answer within \(timeoutSeconds) s"))
        }
        return outcome.withLock { $0 }
    }
}
