import HTTP
import ThumbdCore

/// The fields every image response carries whatever it is (original or thumbnail, hit or
/// miss): `Cache-Control` from `output.cache_control`, and `Accept-CH` when
/// `output.client_hints` asks browsers for the hints `dpr=auto` and `w=auto` use. A document
/// that can run scripts when opened (an SVG or PDF original) also gets a sandboxing
/// `Content-Security-Policy`, so it never runs on thumbd's origin.
struct ImageFields: Sendable {
    let headers: HTTPHeaders
    /// `headers` and the sandbox, for originals of the `activeContentTypes`.
    let sandboxedHeaders: HTTPHeaders

    /// Media types whose documents can carry script.
    static let activeContentTypes: Set<String> = ["image/svg+xml", "application/pdf"]
    /// No script, no plugin, no request to anywhere; the document's own styles and inline
    /// images still draw. `sandbox` without `allow-scripts` also gives it an opaque origin.
    static let sandbox = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"

    init(cacheControl: String, acceptClientHints: Bool) {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, cacheControl)
        if acceptClientHints { headers.add(.acceptCH, ClientHints.accepted) }
        self.init(headers: headers)
    }

    private init(headers: HTTPHeaders) {
        self.headers = headers
        var sandboxed = headers
        sandboxed.add(.contentSecurityPolicy, Self.sandbox)
        sandboxedHeaders = sandboxed
    }

    /// These fields and `extra` after them.
    func adding(_ extra: HTTPHeaders) -> ImageFields {
        var headers = headers
        for field in extra { headers.add(HTTPFieldName(field.name), field.value) }
        return ImageFields(headers: headers)
    }

    /// The fields of a response whose body is of `contentType`.
    func headers(for contentType: String) -> HTTPHeaders {
        Self.activeContentTypes.contains(contentType) ? sandboxedHeaders : headers
    }
}
