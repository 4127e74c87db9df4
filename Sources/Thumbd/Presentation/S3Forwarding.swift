import HTTP
import ThumbdCore
import WireCoding

/// What of a client's request for an original goes on to the store, so that the store answers
/// the same question: one `Range` (several are answered here from the whole object, since
/// stores send only the first), `If-None-Match` and `If-Match`, and the date conditions only
/// without them (RFC 9110 §13.2.2: the store may not follow that order). Stores ignore
/// `If-Range`, so it is asked as a precondition: `If-Match` for a strong ETag,
/// `If-Unmodified-Since` for a date; when that fails (412), the whole object is asked for and
/// the range decided here, as `If-Range` says.
struct S3Forwarding {
    var fields: [(HTTPFieldName, String)]
    /// `If-Range` was sent as a precondition: a 412 means "send the whole object".
    var rangeIsConditional: Bool

    /// The same question without the range and its condition.
    var withoutRange: [(HTTPFieldName, String)]

    init(_ request: HTTPRequest) {
        let headers = request.headers
        var common: [(HTTPFieldName, String)] = []
        if let tags = headers[.ifNoneMatch] {
            common.append((.ifNoneMatch, tags))
        } else if let since = headers[.ifModifiedSince] {
            common.append((.ifModifiedSince, since))
        }
        let clientPreconditions: [(HTTPFieldName, String)] = if let tags = headers[.ifMatch] {
            [(.ifMatch, tags)]
        } else if let since = headers[.ifUnmodifiedSince] {
            [(.ifUnmodifiedSince, since)]
        } else {
            []
        }
        common += clientPreconditions
        withoutRange = common
        fields = common
        rangeIsConditional = false
        guard let field = headers[.range], let range = RangeRequest(parsing: field), range.specs.count == 1 else { return }
        guard let ifRange = headers[.ifRange] else {
            fields.append((.range, Self.text(range.specs[0])))
            return
        }
        // With the client's own preconditions in the way, or a validator a range cannot be
        // conditioned on (weak, malformed), the whole object is asked and the range decided here.
        guard clientPreconditions.isEmpty, let condition = Self.precondition(ifRange) else { return }
        fields.append((.range, Self.text(range.specs[0])))
        fields.append(condition)
        rangeIsConditional = true
    }

    /// `If-Range` as the store understands it.
    static func precondition(_ ifRange: String) -> (HTTPFieldName, String)? {
        let value = ifRange.trimmingOWS()
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let tag = EntityTag(parsing: value), !tag.isWeak else { return nil }
            return (.ifMatch, tag.description)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return (.ifUnmodifiedSince, HTTPDate.format(date))
    }

    static func text(_ spec: RangeRequest.Spec) -> String {
        switch spec {
        case .from(let first, let last): "bytes=\(first)-\(last.map(String.init) ?? "")"
        case .suffix(let count): "bytes=-\(count)"
        }
    }
}
