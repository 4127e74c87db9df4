/// A representation whose full (200) response fields are put in wire form once. Served again
/// to a request without preconditions or Range (nearly every request from an image grid), it
/// costs no header building or formatting; other requests get `Representation.response(to:)`.
public final class PreparedRepresentation: Sendable {
    public let representation: Representation
    private let fullHeaders: HTTPHeaders
    private let fullFields: [UInt8]

    public init(_ representation: Representation) {
        self.representation = representation
        fullHeaders = representation.fullHeaders
        // The same fields the connection would write for this response, written once.
        var fields: [UInt8] = []
        fields.reserveCapacity(64 + fullHeaders.count * 48)
        HTTPResponse(status: .ok, headers: fullHeaders, body: representation.body).appendFields(to: &fields)
        fullFields = fields
    }

    /// Bytes this adds to the memory its owner accounts for.
    public var headBytes: Int { fullFields.count * 2 + 64 }

    public func response(to request: HTTPRequest) -> HTTPResponse {
        if request.hasPreconditionsOrRange { return representation.response(to: request) }
        var response = HTTPResponse(status: .ok, headers: fullHeaders, body: representation.body)
        response.preparedFields = fullFields
        return response
    }
}
