import Cache
import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol

/// `GET /v1/images?page=1&limit=30`: the library's images as JSON, a page at a time, with a
/// `Link: rel="next"` header while more pages exist, and an ETag (304 when unchanged).
struct ListingRoute: Sendable {
    let index: LibraryIndex
    let pool: WorkerPool
    let links: ImageLinks

    struct Paging: Equatable {
        var page: Int
        var limit: Int
    }

    /// Pure: the paging a query asks for, or a 400 naming the parameter.
    static func paging(_ query: QueryParameters) -> Result<Paging, ParameterError> {
        var paging = Paging(page: 1, limit: 30)
        var seen: Set<String> = []
        for (name, value) in query.pairs {
            guard name == "page" || name == "limit" else {
                return .failure(.unknown(name))
            }
            guard seen.insert(name).inserted else { return .failure(.repeated(name)) }
            let range = name == "page" ? 1...1_000_000 : 1...100
            guard value.utf8.count <= 7, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(value), range.contains(n) else {
                return .failure(.init(parameter: name, detail: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(value)'"))
            }
            if name == "page" { paging.page = n } else { paging.limit = n }
        }
        return .success(paging)
    }

    /// One image of the listing, as JSON.
    struct ListedImage: Encodable {
        var id: String
        var width: Int
        var height: Int
        var bytes: Int64
        var format: String
        var url: String
        var placeholder: String
        var color: String
        /// A video's seconds (a grid's duration badge); absent for images.
        var duration: Double?
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            let paging = try Self.paging(QueryParameters(parsing: request.query)).get()
            // Walking the folder (or listing the bucket) blocks: it goes to the pool, not the event loop.
            let accepted = pool.submit { [index, links] in
                do {
                    responder.respond(Self.representation(try index.current(), paging, links: links).response(to: request))
                } catch {
                    responder.respond(Problems.response(for: error))
                }
            }
            if !accepted { throw Overloaded() }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    static func representation(_ snapshot: LibraryIndex.Snapshot, _ paging: Paging, links: ImageLinks) -> Representation {
        let start = min(snapshot.items.count, (paging.page - 1) * paging.limit)
        let end = min(snapshot.items.count, start + paging.limit)
        let page = snapshot.items[start..<end]
        let objects = page.map { item in
            ListedImage(id: item.path, width: item.width, height: item.height, bytes: item.bytes, format: item.format.rawValue,
                        url: links.url(item.path), placeholder: item.facts.placeholderBase64, color: item.facts.color,
                        duration: item.facts.video?.duration)
        }
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-cache")
        if end < snapshot.items.count {
            headers.add(.link, "</v1/images?page=\(paging.page + 1)&limit=\(paging.limit)>; rel=\"next\"")
        }
        headers.add(.xTotalCount, String(snapshot.items.count))
        let etag = EntityTag("l" + StableHash.hex128("\(snapshot.fingerprint)|\(paging.page)|\(paging.limit)|\(links.signs)"))
        return Representation(contentType: "application/json", body: .text(JSONBody.encode(objects)),
                              etag: etag, headers: headers)
    }
}
