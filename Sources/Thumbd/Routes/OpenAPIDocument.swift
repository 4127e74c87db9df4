import Cache
import HTTP

/// `GET /openapi.yaml`: the OpenAPI 3.1 document of every endpoint, `docs/openapi.yaml` as
/// the build embedded it (`OpenAPIText`, by the EmbedAssets plugin).
enum OpenAPIDocument {
    static let representation = Representation(contentType: "application/yaml", body: .text(OpenAPIText.text),
                                               etag: EntityTag("a" + StableHash.hex128(OpenAPIText.text)),
                                               headers: HTTPHeaders([("Cache-Control", "no-cache")]))

    static func response(to request: HTTPRequest) -> HTTPResponse { representation.response(to: request) }
}
