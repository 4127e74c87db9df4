import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol

/// The Lorem Picsum-compatible routes over the library (`picsum.enabled`), so apps written
/// against picsum.photos work by changing the host: `/id/{id}/...` answers the image itself
/// (a thumbnail, through `ThumbnailEndpoint`, with Picsum's fields added); `/{size}`,
/// `/{w}/{h}` and `/seed/{seed}/...` redirect (302, `no-store`) to the chosen image's `/id/`
/// URL, relative, so the image itself stays cacheable under one URL; `/v2/list` and `info`
/// describe images as Picsum does. Errors are thumbd's problem+json. Only paths none of
/// thumbd's own routes match come here (`Route.picsum(path:)`).
struct PicsumRoute: Sendable {
    /// Picsum's bound on a side; `limits.max_dimension` when that is smaller.
    static let maxSide = 5000

    let signer: URLSigner?
    let authorization: TargetAuthorization
    let catalogs: PicsumCatalogs
    /// What the folder or the bucket resolves a path to, answered.
    let answers: LibraryAnswers
    let defaults: TransformRequest.Defaults
    let links: ImageLinks
    let pool: WorkerPool

    var largestSide: Int { min(Self.maxSide, defaults.maxDimension) }

    func handle(_ request: HTTPRequest, route: Route, responder: HTTPResponder) {
        // Every answer, whoever gives it, with Picsum's fields.
        responder.finishing = PicsumFields.cors
        do {
            // Images and redirects are signed as /img is (the signature checked first);
            // listings are not, and their URLs come signed.
            if route == .picsumImage || route == .picsumRedirect { try authorization.check(request.target) }
            guard let target = try PicsumTarget(path: request.path, query: QueryParameters(parsing: request.query),
                                                largestSide: largestSide)
            else { throw NoRoute(path: String(request.path)) }
            switch target {
            case .image(let id, let variant):
                withCatalog(responder, atOnce: true) { catalog in try answerImage(request, id: id, variant, catalog, responder) }
            case .redirect(let pick, let variant):
                withCatalog(responder, atOnce: true) { catalog in try redirect(pick, variant, catalog, responder) }
            case .info(let pick):
                withCatalog(responder, atOnce: false) { catalog in try info(request, pick, catalog, responder) }
            case .list(let page, let limit):
                withCatalog(responder, atOnce: false) { catalog in list(request, page: page, limit: limit, catalog, responder) }
            }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// Runs `body` with the library's catalog: on this thread when `atOnce` and the last walk
    /// of the folder is recent, else on the worker pool (a walk blocks, and JSON bodies are
    /// made off the event loop as the other listings' are).
    private func withCatalog(_ responder: HTTPResponder, atOnce: Bool, _ body: @escaping @Sendable (PicsumCatalog) throws -> Void) {
        let run: @Sendable (PicsumCatalog) -> Void = { catalog in
            do {
                try body(catalog)
            } catch {
                responder.respond(Problems.response(for: error))
            }
        }
        if atOnce, let catalog = catalogs.fresh() { return run(catalog) }
        let accepted = pool.submit { [catalogs] in
            do {
                run(try catalogs.current())
            } catch {
                // The store behind an S3 library down with no listing kept: its 503.
                responder.respond(Problems.response(for: error))
            }
        }
        if !accepted { responder.respond(Overloaded().response) }
    }

    /// The image: the box filled from its centre, always exactly w x h (0: the original's side).
    private func answerImage(_ request: HTTPRequest, id: Int, _ variant: PicsumVariant, _ catalog: PicsumCatalog,
                             _ responder: HTTPResponder) throws {
        guard let entry = catalog.entry(id: id) else { throw PicsumCatalog.Missing(pick: .id(id)) }
        let (width, height) = variant.size(forImageOf: entry.item.width, entry.item.height)
        let path = try LibraryPath(decoded: entry.item.path)
        let transform = try TransformRequest(variant.options(width: width, height: height), defaults: defaults)
        responder.finishing = PicsumFields.image(id: entry.id, filename: variant.filename(id: entry.id, width: width, height: height))
        try answers.answer(request, path: path, transform: transform, memo: nil, responder: responder)
    }

    /// 302 to the chosen image's `/id/{id}/{w}/{h}.{ext}` (sizes resolved, effects kept),
    /// never stored, so the next request draws again.
    private func redirect(_ pick: PicsumTarget.Pick, _ variant: PicsumVariant, _ catalog: PicsumCatalog,
                          _ responder: HTTPResponder) throws {
        guard let entry = catalog.entry(pick) else { throw PicsumCatalog.Missing(pick: pick) }
        let (width, height) = variant.size(forImageOf: entry.item.width, entry.item.height)
        let target = variant.target(id: entry.id, width: width, height: height)
        var headers = HTTPHeaders()
        headers.add(.location, signer?.sign(target) ?? target)
        headers.add(.cacheControl, "no-store")
        responder.respond(HTTPResponse(status: .found, headers: headers))
    }

    private func info(_ request: HTTPRequest, _ pick: PicsumTarget.Pick, _ catalog: PicsumCatalog, _ responder: HTTPResponder) throws {
        guard let entry = catalog.entry(pick) else { throw PicsumCatalog.Missing(pick: pick) }
        let links = PicsumLinks(for: request, signer: signer, images: links)
        responder.respond(Self.json(JSONBody.encode(PicsumImageInfo(entry, links: links)), headers: HTTPHeaders()))
    }

    /// A page of images in path order; `Link` to the previous page (after the first) and the
    /// next (while there are more images).
    private func list(_ request: HTTPRequest, page: Int, limit: Int, _ catalog: PicsumCatalog, _ responder: HTTPResponder) {
        let links = PicsumLinks(for: request, signer: signer, images: links)
        let start = min(catalog.entries.count, (page - 1) * limit)
        let end = min(catalog.entries.count, start + limit)
        let objects = catalog.entries[start..<end].map { PicsumImageInfo($0, links: links) }
        var relations: [String] = []
        if page > 1 { relations.append("<\(links.listPage(page - 1, limit: limit))>; rel=\"prev\"") }
        if end < catalog.entries.count { relations.append("<\(links.listPage(page + 1, limit: limit))>; rel=\"next\"") }
        var headers = HTTPHeaders()
        if !relations.isEmpty { headers.add(.link, relations.joined(separator: ", ")) }
        responder.respond(Self.json(JSONBody.encode(objects), headers: headers))
    }

    /// A JSON answer as Picsum sends them: never stored (the URLs in it name the request's host).
    static func json(_ body: String, headers: HTTPHeaders) -> HTTPResponse {
        var headers = headers
        headers.add(.cacheControl, "no-store")
        return HTTPResponse(contentType: "application/json", body: body + "\n", headers: headers)
    }
}
