import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol

/// How the routes over the library (`/img/{path}`, the Picsum images) turn what the backend
/// resolves into an answer: an original as it is (a folder's file from its prepared response;
/// a bucket's object streamed from the store on a transfer thread, `S3Passthrough`), or a thumbnail
/// through the endpoint, after what its source needs prepared (on a worker).
struct LibraryAnswers: Sendable {
    let library: any LibraryBackend
    let thumbnails: ThumbnailEndpoint
    let pool: WorkerPool
    /// Where a bucket's originals are streamed from (nil for a folder).
    let transfers: WorkerPool?
    let fields: ImageFields
    /// The room for copies of originals kept while they stream (`S3Passthrough.Defaults.copyBytes`).
    let copies = ByteAllowance(limit: S3Passthrough.Defaults.copyBytes)

    func answer(_ request: HTTPRequest, path: LibraryPath, transform: TransformRequest?, memo: IdentityMemo?,
                responder: HTTPResponder) throws {
        guard let transform else { return try original(request, path: path, responder: responder) }
        let resolved = try library.source(path, watermark: transform.options.watermark?.path)
        guard let preparation = resolved.preparation else {
            return try thumbnails.answer(request, transform: transform, of: resolved.source, responder: responder, memo: memo)
        }
        let accepted = pool.submit { [thumbnails] in
            guard !responder.isCancelled else { return }
            do {
                if let failure = preparation() { throw failure }
                try thumbnails.answer(request, transform: transform, of: resolved.source, responder: responder, memo: memo)
            } catch {
                responder.respond(Problems.response(for: error))
            }
        }
        if !accepted { throw Overloaded() }
    }

    private func original(_ request: HTTPRequest, path: LibraryPath, responder: HTTPResponder) throws {
        switch try library.original(path) {
        case .file(let entry):
            responder.respond(thumbnails.tagging.tagged(entry.original.response(to: request), library.sourceName(path)))
        case .object(let object):
            let passthrough = S3Passthrough(objects: object.objects, fields: thumbnails.tagging.fields(fields, for: library.sourceName(path)),
                                            copies: copies)
            // Several ranges read the whole object into memory: on a worker, as transforms do.
            let runner = S3Passthrough.readsWhole(request) ? pool : transfers ?? pool
            let accepted = runner.submit {
                guard !responder.isCancelled else { return }
                passthrough.answer(request, key: object.key, responder: responder)
            }
            if !accepted { throw Overloaded() }
        }
    }
}
