import HTTP

/// `GET /v1/images/{path}`: one library image's facts before any download (see `ImageInfo`).
/// Path rules as `/img`. Answered from the worker pool: the facts of a file version already
/// seen come from the index's memo, others are read there (a small preview is decoded for the
/// placeholder). Not signed, like the listing it extends; it takes no parameters.
struct ImageInfoRoute: Sendable {
    static let pathPrefix = "/v1/images/"

    let files: LibraryFileCache
    let index: LibraryIndex
    let pool: WorkerPool
    let links: ImageLinks

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            // No parameters: one URL per image, and a typo is a 400, as on the listing.
            try QueryParameters(parsing: request.query).refuse(allBut: [])
            let path = try LibraryPath(encoded: request.path.dropFirst(Self.pathPrefix.count))
            let entry = try files.lookup(path)
            let accepted = pool.submit { [index, links] in
                do {
                    let facts = try index.facts(of: path, entry: entry)
                    let info = ImageInfo.representation(id: path.value, facts: facts, originalETag: entry.etag.description,
                                                        url: links.url(path.value), lastModified: entry.lastModified)
                    responder.respond(info.response(to: request))
                } catch {
                    responder.respond(Problems.response(for: error))
                }
            }
            if !accepted { throw Overloaded() }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }
}
