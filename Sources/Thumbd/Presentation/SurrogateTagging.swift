import HTTP
import ThumbdCore

/// The tags (`SurrogateKeys`) on every answer a CDN may cache, in the header and form of the
/// CDN `cdn.kind` names: thumbnails and posters, originals, image info, Picsum's images (its
/// JSON answers are never stored). Nothing with `cdn.kind: none`.
struct SurrogateTagging: Sendable {
    private let field: (name: HTTPFieldName, separator: String)?

    init(_ kind: CDNKind) {
        field = kind.tagHeader.map { (HTTPFieldName($0.name), $0.separator) }
    }

    var isOn: Bool { field != nil }

    /// The field naming `source` and its folders; empty when tagging is off.
    func headers(for source: SourceName) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let field { headers.add(field.name, SurrogateKeys.tags(of: source).joined(separator: field.separator)) }
        return headers
    }

    func tagged(_ response: HTTPResponse, _ source: SourceName) -> HTTPResponse {
        guard let field else { return response }
        var response = response
        response.headers.add(field.name, SurrogateKeys.tags(of: source).joined(separator: field.separator))
        return response
    }

    /// `fields` with the source's tags added, for answers built from them (a bucket's originals).
    func fields(_ fields: ImageFields, for source: SourceName) -> ImageFields {
        isOn ? fields.adding(headers(for: source)) : fields
    }
}
