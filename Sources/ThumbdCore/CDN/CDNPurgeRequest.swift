import Foundation

/// The CDN in front of the replicas, as `cdn.kind` names it: the header its answers are tagged
/// with, and how it is asked to drop the answers filed under some tags.
public enum CDNKind: String, Sendable, CaseIterable {
    case none, varnish, fastly, cloudflare

    /// The response header the CDN files answers by, and how it separates tags.
    package var tagHeader: (name: String, separator: String)? {
        switch self {
        case .none: nil
        // Varnish's xkey module reads xkey; Fastly, Surrogate-Key (both space-separated);
        // Cloudflare, Cache-Tag (comma-separated).
        case .varnish: ("xkey", " ")
        case .fastly: ("Surrogate-Key", " ")
        case .cloudflare: ("Cache-Tag", ",")
        }
    }

    /// Where purges go when `cdn.purge_url` is empty: the services' documented APIs (a Varnish
    /// has no such address: it must be given).
    package var defaultEndpoint: String? {
        switch self {
        case .none, .varnish: nil
        case .fastly: "https://api.fastly.com"
        case .cloudflare: "https://api.cloudflare.com/client/v4"
        }
    }

    /// Tags one request may carry (Cloudflare takes 30 per purge; Fastly 256).
    var tagsPerRequest: Int {
        switch self {
        case .none, .varnish: 64
        case .fastly: 256
        case .cloudflare: 30
        }
    }
}

/// One purge-by-tag request, as each CDN documents it:
/// - Varnish with the xkey VCL of `deploy/varnish/thumbd.vcl`: `PURGE /` with `xkey-purge: TAG ...`;
/// - Fastly: `POST /service/{service}/purge` with `Fastly-Key` and `{"surrogate_keys": [...]}`;
/// - Cloudflare: `POST /zones/{zone}/purge_cache` with a bearer token and `{"tags": [...]}`.
package struct CDNPurgeRequest: Sendable, Equatable {
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    package var method: String
    package var url: String
    package var fields: [Field]
    package var body: [UInt8]

    /// The requests that purge `tags` (more than one when a CDN takes fewer per request).
    package static func requests(_ kind: CDNKind, endpoint: String, service: String, token: String,
                                 tags: [String]) -> [CDNPurgeRequest] {
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        return stride(from: 0, to: tags.count, by: kind.tagsPerRequest).compactMap { start in
            let some = Array(tags[start..<min(tags.count, start + kind.tagsPerRequest)])
            switch kind {
            case .none:
                return nil
            case .varnish:
                return CDNPurgeRequest(method: "PURGE", url: base + "/", fields: [Field(name: "xkey-purge", value: some.joined(separator: " "))],
                                       body: [])
            case .fastly:
                return CDNPurgeRequest(method: "POST", url: base + "/service/" + service + "/purge",
                                       fields: [Field(name: "Fastly-Key", value: token), Field(name: "Content-Type", value: "application/json"),
                                                Field(name: "Accept", value: "application/json")],
                                       body: json(["surrogate_keys": some]))
            case .cloudflare:
                return CDNPurgeRequest(method: "POST", url: base + "/zones/" + service + "/purge_cache",
                                       fields: [Field(name: "Authorization", value: "Bearer " + token),
                                                Field(name: "Content-Type", value: "application/json")],
                                       body: json(["tags": some]))
            }
        }
    }

    private static func json(_ object: [String: [String]]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}
