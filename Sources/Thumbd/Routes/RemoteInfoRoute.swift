import Cache
import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// `GET /v1/info?url=...`: a remote original's facts (see `ImageInfo`), fetched through the
/// origin cache with the allow-list and signing rules of `/proxy`.
struct RemoteInfoRoute: Sendable {
    let authorization: TargetAuthorization
    let originals: RemoteOriginals?
    let pool: WorkerPool
    /// nil: the answer has no `faces`.
    let faces: SourceFaces?
    /// What reading facts may use (video limits, the renderers of SVG and PDF).
    let reading: FactReading
    let tagging: SurrogateTagging
    /// Facts by URL, for the original's version they were read from.
    let known = SharedLRUCache<String, (version: String, facts: ImageFacts)>(capacity: 4096)

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            try authorization.check(request.target)
            guard let originals else { throw ProxyRoute.Refusal.remoteOff }
            let query = try QueryParameters(parsing: request.query)
            try query.refuse(allBut: ["url", ThumbnailOptions.expiryParameter, ThumbnailOptions.signatureParameter])
            let url = try ProxyRoute.allowedURL(in: query, originals: originals)
            let accepted = pool.submit { [known, faces, reading, tagging, signer = authorization.signer] in
                responder.respond(tagging.tagged(Self.answer(request, url: url, originals: originals, known: known, faces: faces,
                                                             reading: reading, signer: signer), .remote(url)))
            }
            if !accepted { throw Overloaded() }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// Worker thread: the original (fetched or cached), then its facts.
    static func answer(_ request: HTTPRequest, url: String, originals: RemoteOriginals,
                       known: SharedLRUCache<String, (version: String, facts: ImageFacts)>, faces: SourceFaces?,
                       reading: FactReading, signer: URLSigner?) -> HTTPResponse {
        do {
            let original = try originals.original(url).get().original
            guard let format = original.version.format else { throw RemoteOriginals.Failure.notAnImage }
            let facts: ImageFacts
            if let kept = known.get(url), kept.version == original.version.tag.text {
                facts = kept.facts
            } else {
                facts = try ImageFacts.read(SourceContent(bytes: original.bytes, format: format), bytes: Int64(original.bytes.count),
                                            reading: reading)
                known.put(url, (original.version.tag.text, facts), cost: 1)
            }
            // Left out when they cannot be found (an image over the pixel limit), as on `/v1/images`.
            let found = faces.flatMap { try? $0.faces(of: .remote(url), version: original.version, bytes: original.bytes).get() }
            let target = "/proxy?url=" + PercentCoding.encode(url, keepingSlashes: false)
            let link = signer?.sign(target) ?? target
            let etag = EntityTag(ThumbnailIdentity.originalETag(sourceVersion: original.version.tag.text))
            return ImageInfo.representation(id: url, facts: facts, faces: found, originalETag: etag.description, url: link,
                                            lastModified: ThumbnailPresenter.timestamp(original.version.lastModified)).response(to: request)
        } catch {
            return Problems.response(for: error)
        }
    }
}
