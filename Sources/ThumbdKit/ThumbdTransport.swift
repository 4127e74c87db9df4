import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ThumbdKit talks HTTP: start a request, receive its head, its body in chunks and its end.
/// `URLSessionTransport` is the default; `ThrottledTransport` wraps any transport to add
/// latency, a bandwidth limit and delivery jitter (for simulators and tests).
///
/// Streaming chunks (rather than one `Data` at the end) is what lets the loader keep the bytes
/// of a stopped transfer and resume it with a `Range` request: Linux's URLSession has no resume
/// data and no `bytes(for:)`.
public protocol ThumbdTransport: Sendable {
    /// Starts `request`. `events` receives `.response` once, then `.data` chunks, then
    /// `.finished` exactly once, in order and never concurrently. After `cancel()` on the
    /// returned task, no more events are delivered. `priority` is 0...1 (`URLSessionTask.priority`).
    func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask
}

/// A transfer under way.
public protocol TransportTask: Sendable {
    /// Stops the transfer promptly (closes the connection); no further events.
    func cancel()
    /// Changes the transfer's priority, 0...1 (a hint; prefetches run low, visible loads high).
    func setPriority(_ priority: Float)
}

public enum TransportEvent: Sendable {
    case response(TransportResponse)
    case data(Data)
    /// The end: nil when the body arrived whole, else why it did not.
    case finished((any Error)?)
}

/// A response head, independent of `HTTPURLResponse` (so wrappers and tests can make one).
public struct TransportResponse: Sendable, Equatable {
    public var statusCode: Int
    /// Field names in lower case.
    public var headers: [String: String]
    public var url: URL?

    public init(statusCode: Int, headers: [String: String], url: URL? = nil) {
        self.statusCode = statusCode
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.url = url
    }

    /// From URLSession's response; a non-HTTP response gets status 0.
    public init(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            self.init(statusCode: 0, headers: [:], url: response.url)
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            let fieldName = (name.base as? String) ?? String(describing: name.base)
            headers[fieldName] = (value as? String) ?? String(describing: value)
        }
        self.init(statusCode: http.statusCode, headers: headers, url: http.url)
    }

    /// A field's value, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    public var contentLength: Int? {
        header("Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}

extension ThumbdTransport {
    /// The whole response at once, for small bodies such as listing pages. Cancelling the
    /// calling task cancels the transfer.
    public func response(for request: URLRequest, priority: Float = 0.5) async throws -> (TransportResponse, Data) {
        let transfer = NetworkTransfer(resumingFrom: nil, onBytes: { _ in })
        let outcome = try await withTaskCancellationHandler {
            try await transfer.run(on: self, request: request, priority: priority)
        } onCancel: {
            transfer.stop()
        }
        switch outcome {
        case .finished(let result): return (result.response, result.body)
        case .restart: throw ThumbdLoadError.invalidResponse("unexpected partial content")
        }
    }
}
