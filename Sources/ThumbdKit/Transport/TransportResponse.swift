import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
