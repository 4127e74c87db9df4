/// A response as handlers produce it. Framing headers (Content-Length, Connection, Date,
/// Server) are added by the connection when it is written.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: ResponseBody

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A small JSON or text body with its content type.
    public init(status: HTTPStatus = .ok, contentType: String, body: String, headers: HTTPHeaders = HTTPHeaders()) {
        var headers = headers
        headers.set("Content-Type", contentType)
        self.init(status: status, headers: headers, body: .text(body))
    }
}
