import Foundation

/// The store's address: `library.s3.endpoint` (a Ceph RGW, MinIO, Cloudflare R2, ...) or, without
/// one, AWS S3 in the region; with the bucket in the path (`path_style`, what self-hosted stores
/// and R2 take) or in the host name (AWS's virtual-hosted style).
package struct S3Endpoint: Sendable, Equatable {
    /// `http` or `https`.
    package let scheme: String
    /// Host and port as written (`127.0.0.1:7480`, `s3.us-east-1.amazonaws.com`).
    package let authority: String
    /// A path the store is served under, without its final `/` (usually empty).
    package let basePath: String
    package let pathStyle: Bool

    /// Nil for text that is not an http(s) URL with a host and no query.
    package init?(parsing text: String, pathStyle: Bool) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.percentEncodedHost, !host.isEmpty,
              components.query == nil, components.fragment == nil, components.user == nil
        else { return nil }
        self.scheme = scheme
        authority = host + (components.port.map { ":\($0)" } ?? "")
        var path = Substring(components.percentEncodedPath)
        while path.hasSuffix("/") { path = path.dropLast() }
        basePath = String(path)
        self.pathStyle = pathStyle
    }

    /// AWS S3 in `region`.
    package init(awsRegion region: String, pathStyle: Bool) {
        scheme = "https"
        authority = "s3.\(region).amazonaws.com"
        basePath = ""
        self.pathStyle = pathStyle
    }

    /// `endpoint` (empty: AWS S3 in `region`), path style unless `pathStyle` says otherwise
    /// (default: path style when an endpoint is set); nil when the endpoint is not a URL.
    package init?(endpoint: String, region: String, pathStyle: Bool?) {
        if endpoint.isEmpty {
            self.init(awsRegion: region, pathStyle: pathStyle ?? false)
        } else {
            self.init(parsing: endpoint, pathStyle: pathStyle ?? true)
        }
    }

    /// Where `bucket`'s keys start: a key's URL is this, `/` and the encoded key.
    package func bucketURL(_ bucket: String) -> String {
        pathStyle ? "\(scheme)://\(authority)\(basePath)/\(bucket)" : "\(scheme)://\(bucket).\(authority)\(basePath)"
    }

    /// The bucket's own resource, which a listing's query follows.
    package func listingURL(_ bucket: String) -> String {
        pathStyle ? bucketURL(bucket) : bucketURL(bucket) + "/"
    }

    /// The endpoint as configured, for messages (it holds no secret).
    package var description: String { "\(scheme)://\(authority)\(basePath)" }
}
