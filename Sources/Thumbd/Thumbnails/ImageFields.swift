import HTTP

/// The fields every image response carries whatever it is (original or thumbnail, hit or
/// miss): `Cache-Control` from `output.cache_control`, and `Accept-CH` when
/// `output.client_hints` asks browsers for the hints `dpr=auto` and `w=auto` use.
struct ImageFields: Sendable {
    let headers: HTTPHeaders

    init(cacheControl: String, acceptClientHints: Bool) {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, cacheControl)
        if acceptClientHints { headers.add(.acceptCH, ClientHints.accepted) }
        self.headers = headers
    }
}
