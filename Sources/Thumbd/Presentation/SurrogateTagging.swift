import Cache
import HTTP
import ThumbdCore

/// The tags (`SurrogateKeys`) on every answer a CDN may cache, in the header and form of the
/// CDN `cdn.kind` names: thumbnails and posters, originals, image info, Picsum's images (its
/// JSON answers are never stored). Nothing with `cdn.kind: none`.
struct SurrogateTagging: Sendable {
    private let field: (name: HTTPFieldName, separator: String)?
    private let values = SharedLRUCache<String, String>(capacity: 4096)

    init(_ kind: CDNKind) {
        field = kind.tagHeader.map { (HTTPFieldName($0.name), $0.separator) }
    }

    var isOn: Bool { field != nil }

    /// The field naming `source` and its folders; empty when tagging is off.
    func headers(for source: SourceName) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let field { headers.add(field.name, value(for: source)) }
        return headers
    }

    /// A successful answer (2xx, 304) tagged; a problem is never stored by a CDN, and is left as it is.
    func tagged(_ response: HTTPResponse, _ source: SourceName) -> HTTPResponse {
        guard let field, (200..<300).contains(response.status.code) || response.status.code == 304 else { return response }
        var response = response
        response.headers.add(field.name, value(for: source))
        return response
    }

    /// The header's value, kept per source: a hit pays a lookup, not its hashes.
    private func value(for source: SourceName) -> String {
        if let kept = values.get(source.text) { return kept }
        let value = SurrogateKeys.tags(of: source).joined(separator: field?.separator ?? " ")
        values.put(source.text, value, cost: 1)
        return value
    }

    /// `fields` with the source's tags added, for answers built from them (a bucket's originals).
    func fields(_ fields: ImageFields, for source: SourceName) -> ImageFields {
        isOn ? fields.adding(headers(for: source)) : fields
    }
}
