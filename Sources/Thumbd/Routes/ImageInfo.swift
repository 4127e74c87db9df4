import Cache
import HTTP

/// The JSON of `/v1/images/{path}` and `/v1/info?url=`: an image's facts, its original's
/// ETag and the URL to fetch it by, as one representation with a strong ETag of its own.
enum ImageInfo {
    static func representation(id: String, facts: ImageFacts, originalETag: String, url: String, lastModified: Timestamp?)
        -> Representation {
        let json = "{\"id\":\(JSONText.quote(id)),\"width\":\(facts.width),\"height\":\(facts.height),"
            + "\"orientation\":\(facts.orientation),\"format\":\(JSONText.quote(facts.format.rawValue)),\"bytes\":\(facts.bytes),"
            + "\"alpha\":\(facts.alpha),\"frames\":\(facts.frames),\"placeholder\":\(JSONText.quote(facts.placeholderBase64)),"
            + "\"color\":\(JSONText.quote(facts.color)),\"etag\":\(JSONText.quote(originalETag)),\"url\":\(JSONText.quote(url))}"
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-cache")
        // The same facts and link give the same tag: derived from what the body says.
        return Representation(contentType: "application/json", body: .text(json), etag: EntityTag("i" + StableHash.hex128(json)),
                              lastModified: lastModified, headers: headers)
    }
}
