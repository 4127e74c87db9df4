import HTTP

/// The fields Picsum's answers carry besides thumbd's own, set once per request on its
/// responder (`HTTPResponder.finishing`): CORS on every answer (GET from any origin,
/// `Picsum-ID` and `Link` readable by scripts), and on an image its id and download name.
enum PicsumFields {
    static let cors: @Sendable (inout HTTPResponse) -> Void = { response in
        response.headers.add(.accessControlAllowOrigin, "*")
        response.headers.add(.accessControlExposeHeaders, "Picsum-ID, Link")
    }

    /// An image answer's: CORS always; the id and `Content-Disposition` when it is the image
    /// (200, 206, 304), not a problem.
    static func image(id: Int, filename: String) -> @Sendable (inout HTTPResponse) -> Void {
        { response in
            cors(&response)
            guard response.status.code < 400 else { return }
            response.headers.add(.picsumID, String(id))
            response.headers.add(.contentDisposition, "inline; filename=\"\(filename)\"")
        }
    }
}
