/// An RFC 9457 problem: the error body of every 4xx and 5xx this server sends.
public struct ProblemDetails: Sendable, Equatable {
    public var status: HTTPStatus
    public var title: String
    public var detail: String
    /// A URI reference naming the kind of problem; `about:blank` when the status says it all.
    public var type: String
    /// Extension members, such as the name of a bad parameter.
    public var extensions: [(String, String)]

    public init(_ status: HTTPStatus, detail: String, type: String = "about:blank",
                title: String? = nil, extensions: [(String, String)] = []) {
        self.status = status
        self.detail = detail
        self.type = type
        self.title = title ?? status.reasonPhrase
        self.extensions = extensions
    }

    public static func == (lhs: ProblemDetails, rhs: ProblemDetails) -> Bool {
        lhs.status == rhs.status && lhs.title == rhs.title && lhs.detail == rhs.detail && lhs.type == rhs.type
            && lhs.extensions.map(\.0) == rhs.extensions.map(\.0) && lhs.extensions.map(\.1) == rhs.extensions.map(\.1)
    }

    public var json: String { JSONBody.encode(self) }

    public var response: HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-store")
        return HTTPResponse(status: status, contentType: "application/problem+json", body: json, headers: headers)
    }
}

extension ProblemDetails: Encodable {
    private struct Member: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var members = encoder.container(keyedBy: Member.self)
        try members.encode(type, forKey: Member("type"))
        try members.encode(title, forKey: Member("title"))
        try members.encode(status.code, forKey: Member("status"))
        try members.encode(detail, forKey: Member("detail"))
        for (name, value) in extensions { try members.encode(value, forKey: Member(name)) }
    }
}
