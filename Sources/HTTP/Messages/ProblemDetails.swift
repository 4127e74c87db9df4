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

    public var json: String {
        var members = [("type", JSONText.quote(type)), ("title", JSONText.quote(title)),
                       ("status", String(status.code)), ("detail", JSONText.quote(detail))]
        members += extensions.map { ($0.0, JSONText.quote($0.1)) }
        return "{" + members.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    public var response: HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: status, contentType: "application/problem+json", body: json, headers: headers)
    }
}

/// Minimal JSON string quoting, enough for the server's own small documents.
public enum JSONText {
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
