import WireCoding

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
    /// A word for the access log about how the handler answered (the cache tier), passed to
    /// observers with the finished exchange; never sent.
    public var annotation: String?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A small JSON or text body with its content type.
    public init(status: HTTPStatus = .ok, contentType: String, body: String, headers: HTTPHeaders = HTTPHeaders()) {
        var headers = headers
        headers.set(.contentType, contentType)
        self.init(status: status, headers: headers, body: .text(body))
    }
}

extension HTTPResponse {
    /// The header fields as they go on the wire: the prepared ones, or every field of
    /// `headers` as `Name: value\r\n` and then Content-Length unless the status has no content.
    package func appendFields(to out: inout [UInt8]) {
        if let preparedFields {
            out.append(contentsOf: preparedFields)
            return
        }
        for field in headers {
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        if status != .notModified && !status.forbidsBody {
            out.append(contentsOf: "Content-Length: ".utf8)
            DecimalText.append(body.count, to: &out)
            out.append(contentsOf: "\r\n".utf8)
        }
    }
}
