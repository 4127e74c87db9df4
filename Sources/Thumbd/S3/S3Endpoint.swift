import Foundation

/// The store's address: `library.s3.endpoint` (a Ceph RGW, MinIO, Cloudflare R2, ...) or, without
/// one, AWS S3 in the region; with the bucket in the path (`path_style`, what self-hosted stores
/// and R2 take) or in the host name (AWS's virtual-hosted style).
struct S3Endpoint: Sendable, Equatable {
    /// `http` or `https`.
    let scheme: String
    /// Host and port as written (`127.0.0.1:7480`, `s3.us-east-1.amazonaws.com`).
    let authority: String
    /// A path the store is served under, without its final `/` (usually empty).
    let basePath: String
    let pathStyle: Bool

    /// Nil for text that is not an http(s) URL with a host and no query.
    init?(parsing text: String, pathStyle: Bool) {
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
    init(awsRegion region: String, pathStyle: Bool) {
        scheme = "https"
        authority = "s3.\(region).amazonaws.com"
        basePath = ""
        self.pathStyle = pathStyle
    }

    /// `endpoint` (empty: AWS S3 in `region`), path style unless `pathStyle` says otherwise
    /// (default: path style when an endpoint is set); nil when the endpoint is not a URL.
    init?(endpoint: String, region: String, pathStyle: Bool?) {
        if endpoint.isEmpty {
            self.init(awsRegion: region, pathStyle: pathStyle ?? false)
        } else {
            self.init(parsing: endpoint, pathStyle: pathStyle ?? true)
        }
    }

    /// Where `bucket`'s keys start: a key's URL is this, `/` and the encoded key.
    func bucketURL(_ bucket: String) -> String {
        pathStyle ? "\(scheme)://\(authority)\(basePath)/\(bucket)" : "\(scheme)://\(bucket).\(authority)\(basePath)"
    }

    /// The bucket's own resource, which a listing's query follows.
    func listingURL(_ bucket: String) -> String {
        pathStyle ? bucketURL(bucket) : bucketURL(bucket) + "/"
    }

    /// The endpoint as configured, for messages (it holds no secret).
    var description: String { "\(scheme)://\(authority)\(basePath)" }
}
