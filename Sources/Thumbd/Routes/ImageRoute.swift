import HTTP
import ThumbdProtocol

/// `GET /img/{path}`: with no transform parameters the library's original byte for byte; with
/// them a thumbnail, from the thumbnail service (a hit is answered here, on the event loop).
struct ImageRoute: Sendable {
    static let pathPrefix = "/img/"

    let targets: TargetMemo
    let signer: URLSigner?
    let parser: TransformParser
    /// The folder or the bucket.
    let library: any LibraryBackend
    let thumbnails: ThumbnailEndpoint

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            let parsed = try targets.get(request.target) ?? parse(request)
            try library.answer(request, path: parsed.path, transform: parsed.transform, thumbnails: thumbnails,
                               memo: parsed.identities, finish: nil, responder: responder)
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// Validates the target (signature, query, path, parameters, in that order, before the
    /// file system is touched); only targets that pass are memoized.
    private func parse(_ request: HTTPRequest) throws -> ParsedTarget {
        try signer?.verify(request.target)
        let query = try QueryParameters(parsing: request.query)
        let path = try LibraryPath(encoded: request.path.dropFirst(Self.pathPrefix.count))
        let parsed = ParsedTarget(path: path, transform: try parser.transform(query))
        targets.put(request.target, parsed)
        return parsed
    }
}
