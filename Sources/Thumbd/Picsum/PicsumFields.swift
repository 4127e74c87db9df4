import HTTP

/// The fields Picsum's answers carry besides thumbd's own: CORS on every answer (GET from any
/// origin, `Picsum-ID` and `Link` readable by scripts), and on an image its id and download
/// name.
enum PicsumFields {
    static func addCORS(to headers: inout HTTPHeaders) {
        headers.add(.accessControlAllowOrigin, "*")
        headers.add(.accessControlExposeHeaders, "Picsum-ID, Link")
    }

    static func withCORS(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        addCORS(to: &response.headers)
        return response
    }

    /// What an image answer gets on top of the thumbnail's fields: CORS always; the id and
    /// `Content-Disposition` when it is the image (200, 206, 304), not a problem.
    static func image(id: Int, filename: String) -> @Sendable (inout HTTPResponse) -> Void {
        { response in
            addCORS(to: &response.headers)
            guard response.status.code < 400 else { return }
            response.headers.add(.picsumID, String(id))
            response.headers.add(.contentDisposition, "inline; filename=\"\(filename)\"")
        }
    }
}
