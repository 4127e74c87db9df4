import WireCoding

/// A selected representation of a resource: its content and validators. Turning it into
/// a response for a given request is where conditional requests (RFC 9110 §13) and range
/// requests (§14) are decided, the same way for every kind of content.
public struct Representation: Sendable {
    public var contentType: String
    public var body: ResponseBody
    public var etag: EntityTag?
    /// Last modification.
    public var lastModified: Timestamp?
    /// Extra headers sent with 200, 206 and 304 alike (Cache-Control, Vary, ...).
    public var headers: HTTPHeaders

    public init(contentType: String, body: ResponseBody, etag: EntityTag? = nil, lastModified: Timestamp? = nil,
                headers: HTTPHeaders = HTTPHeaders()) {
        self.contentType = contentType
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.headers = headers
    }

    /// What the request's preconditions and Range field make of this representation.
    public enum Outcome: Equatable, Sendable {
        case full
        case notModified
        case preconditionFailed
        case partial([Range<UInt64>])
        case rangeNotSatisfiable
    }

    /// The pure decision, separate from building the response so it can be tested alone.
    public func evaluate(_ request: HTTPRequest) -> Outcome {
        let isGetOrHead = request.method == .get || request.method == .head
        // §13.2.2 step 1-2: If-Match, else If-Unmodified-Since.
        if let field = request.headers[.ifMatch] {
            guard let list = EntityTag.List(parsing: field), let etag, list.containsStrongMatch(for: etag) else {
                return .preconditionFailed
            }
        } else if let field = request.headers[.ifUnmodifiedSince], let date = HTTPDate.parse(field),
                  let lastModified, lastModified.seconds > date {
            return .preconditionFailed
        }
        // Step 3-4: If-None-Match, else If-Modified-Since.
        if let field = request.headers[.ifNoneMatch] {
            if let list = EntityTag.List(parsing: field), let etag, list.containsWeakMatch(for: etag), isGetOrHead {
                return .notModified
            }
        } else if isGetOrHead, let field = request.headers[.ifModifiedSince], let date = HTTPDate.parse(field),
                  let lastModified, lastModified.seconds <= date {
            return .notModified
        }
        // Step 5: Range, guarded by If-Range.
        guard isGetOrHead, let field = request.headers[.range], let range = RangeRequest(parsing: field) else { return .full }
        if let ifRange = request.headers[.ifRange], !ifRangeHolds(ifRange) { return .full }
        let ranges = range.resolve(length: UInt64(body.count))
        return ranges.isEmpty ? .rangeNotSatisfiable : .partial(ranges)
    }

    /// If-Range holds for the current strong ETag or exactly the Last-Modified date.
    private func ifRangeHolds(_ field: String) -> Bool {
        let value = field.trimmingOWS()
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let tag = EntityTag(parsing: value), let etag else { return false }
            return tag.strongMatches(etag)
        }
        guard let date = HTTPDate.parse(value), let lastModified else { return false }
        return date == lastModified.seconds
    }

    /// The fields every 200, 206 and 304 carries: the extras, then the validators.
    private var commonHeaders: HTTPHeaders {
        // `headers` holds only the caller's extras, so appending cannot duplicate a field.
        var headers = headers
        if let etag { headers.add(.etag, etag.description) }
        if let lastModified { headers.add(.lastModified, lastModified.httpDate) }
        headers.add(.acceptRanges, "bytes")
        return headers
    }

    /// The fields of the full (200) response.
    var fullHeaders: HTTPHeaders {
        var headers = commonHeaders
        headers.add(.contentType, contentType)
        return headers
    }

    public func response(to request: HTTPRequest) -> HTTPResponse {
        var headers = commonHeaders
        let total = UInt64(body.count)
        switch evaluate(request) {
        case .full:
            return HTTPResponse(status: .ok, headers: fullHeaders, body: body)
        case .notModified:
            return HTTPResponse(status: .notModified, headers: headers)
        case .preconditionFailed:
            return ProblemDetails(.preconditionFailed, detail: "a precondition (If-Match or If-Unmodified-Since) does not hold").response
        case .rangeNotSatisfiable:
            var response = ProblemDetails(.rangeNotSatisfiable, detail: "no requested range starts before byte \(total)").response
            response.headers.set(.contentRange, "bytes */\(total)")
            return response
        case .partial(let ranges) where ranges.count == 1:
            let r = ranges[0]
            headers.add(.contentType, contentType)
            headers.add(.contentRange, "bytes \(r.lowerBound)-\(r.upperBound - 1)/\(total)")
            return HTTPResponse(status: .partialContent, headers: headers, body: body.slice(Int64(r.lowerBound)..<Int64(r.upperBound)))
        case .partial(let ranges):
            let boundary = Self.makeBoundary()
            headers.add(.contentType, "multipart/byteranges; boundary=\(boundary)")
            var multipart = ResponseBody()
            for r in ranges {
                let partHead = "\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\nContent-Range: bytes \(r.lowerBound)-\(r.upperBound - 1)/\(total)\r\n\r\n"
                multipart.append(.bytes(Array(partHead.utf8)[...]))
                for segment in body.slice(Int64(r.lowerBound)..<Int64(r.upperBound)).segments { multipart.append(segment) }
            }
            multipart.append(.bytes(Array("\r\n--\(boundary)--\r\n".utf8)[...]))
            return HTTPResponse(status: .partialContent, headers: headers, body: multipart)
        }
    }

    /// 24 random hex digits: fixed length, so HEAD and GET announce the same Content-Length.
    static func makeBoundary() -> String {
        var g = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef")
        return "thumbd-" + String((0..<24).map { _ in hex[Int(g.next() % 16)] })
    }
}
