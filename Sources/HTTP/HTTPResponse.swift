/// A response as handlers produce it. Framing headers (Content-Length, Connection, Date,
/// Server) are added by the connection when it is written.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus {
        didSet { preparedFields = nil }
    }
    public var headers: HTTPHeaders {
        didSet { preparedFields = nil }
    }
    public var body: ResponseBody {
        didSet { preparedFields = nil }
    }
    /// `headers` and Content-Length already in wire form (see `PreparedRepresentation`);
    /// changing the status, the headers or the body drops it.
    var preparedFields: [UInt8]?

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

extension HTTPHeaders {
    /// Appends every field as `Name: value\r\n`.
    func serialize(into out: inout [UInt8]) {
        for field in fields {
            out.append(contentsOf: field.name.utf8)
            out.append(58)
            out.append(32)
            out.append(contentsOf: field.value.utf8)
            out.append(13)
            out.append(10)
        }
    }
}
