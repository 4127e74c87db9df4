import HTTP
import HTTPServer
import ThumbdCore

/// `GET /v1/images/{path}`: one library image's facts before any download (see `ImageInfo`).
/// Path rules as `/img`. Answered from the worker pool: the facts of a version already seen
/// come from the index's memo, others are read there (a small preview is decoded for the
/// placeholder), and so are its faces (once per version, kept in the cache tiers; left out when
/// they cannot be found, as for an image over the pixel limit). Not signed,
/// like the listing it extends; it takes no parameters.
struct ImageInfoRoute: Sendable {
    static let pathPrefix = "/v1/images/"

    let library: any LibraryBackend
    let pool: WorkerPool
    let links: ImageLinks
    /// nil: the answer has no `faces`.
    let faces: SourceFaces?
    let tagging: SurrogateTagging

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            // No parameters: one URL per image, and a typo is a 400, as on the listing.
            try QueryParameters(parsing: request.query).refuse(allBut: [])
            let path = try LibraryPath(encoded: request.path.dropFirst(Self.pathPrefix.count))
            let accepted = pool.submit { [library, links, faces, tagging] in
                do {
                    let image = try library.info(path)
                    let found = faces.flatMap { faces in try? faces.faces(of: library.source(path, watermark: nil).source).get() }
                    let info = ImageInfo.representation(id: path.value, facts: image.facts, faces: found,
                                                        originalETag: image.originalETag, url: links.url(path.value),
                                                        lastModified: image.lastModified)
                    responder.respond(tagging.tagged(info.response(to: request), library.sourceName(path)))
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
