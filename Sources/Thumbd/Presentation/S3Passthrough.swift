import HTTP
import HTTPServer
import Imaging
import ThumbdCore
import WireCoding

/// `/img/{path}` without parameters from a bucket: the client's `Range` and conditions go to
/// the store (`S3Forwarding`), so a client resumes an original straight from it, and the
/// store's answer becomes thumbd's own: `Content-Type` from the bytes, the store's (strong)
/// ETag and Last-Modified, `Cache-Control` and the other image fields, a problem for errors.
///
/// A 200 or 206 is streamed: its head goes to the client once the store's answer and its first
/// bytes are there, and the body follows as the store sends it, through a `BodyStream` of
/// bounded size, so memory does not grow with the object and any length is passed on. It runs
/// on a transfer thread of its own pool, which a slow client holds, never a worker. A new whole
/// object of at most `Defaults.keptBytes` (and `limits.max_source_bytes`) that came whole is kept
/// as the original thumbnails are made from, when its copy fits `Defaults.copyBytes` beside the
/// others being made. Several ranges in one request are answered here from the whole object,
/// read into memory within `limits.max_source_bytes` on a worker (`readsWhole`), since stores
/// send only the first. While the store is down the original kept, if any, is answered.
struct S3Passthrough: Sendable {
    enum Defaults {
        /// Transfers at a time: each holds a thread and at most two `BodyStream` capacities,
        /// plus its share of `copyBytes`.
        static let transfers = 32
        /// Transfers waiting for a thread before more are refused (503).
        static let queuedTransfers = 256
        /// Objects streamed whole up to this length are kept as originals.
        static let keptBytes = 8 << 20
        /// The copies being made of objects to keep, all transfers together.
        static let copyBytes = 32 << 20
        /// How long one push waits for its client to take bytes before the transfer gives up:
        /// enough for a client at 2 KB/s to read a stream's capacity.
        static let patience = 600.0
    }

    let objects: S3Objects
    let fields: ImageFields
    /// The room for copies of objects being kept (`Defaults.copyBytes`), shared by every transfer.
    let copies: ByteAllowance

    /// Several ranges in one request: the whole object is read into memory, on a worker.
    static func readsWhole(_ request: HTTPRequest) -> Bool {
        guard let field = request.headers[.range], let ranges = RangeRequest(parsing: field) else { return false }
        return ranges.specs.count > 1
    }

    /// Transfer thread (a worker when `readsWhole`): answers `request` for the object `key`.
    func answer(_ request: HTTPRequest, key: String, responder: HTTPResponder) {
        if Self.readsWhole(request) { return responder.respond(response(to: request, key: key)) }
        let forwarding = S3Forwarding(request)
        var asked = stream(key, fields: forwarding.fields, request: request, responder: responder)
        if forwarding.rangeIsConditional, case .success(let response?) = asked, response.status == 412 {
            // If-Range did not hold: the whole object.
            asked = stream(key, fields: forwarding.withoutRange, request: request, responder: responder)
        }
        switch asked {
        case .success(nil): return  // streamed, or answered
        case .success(let response?): responder.respond(answer(response, key: key, request: request))
        case .failure(let error): responder.respond(unavailable(error, key: key, request: request))
        }
    }

    /// Streams a 200 or 206 of `key` to `responder`. Returns any other answer of the store, for
    /// the caller, or nil once the answer went (streamed, or a problem with the streamed one).
    private func stream(_ key: String, fields: [(HTTPFieldName, String)], request: HTTPRequest,
                        responder: HTTPResponder) -> Result<S3Response?, S3Error> {
        var other: S3Response?
        var kept: SourceVersion?
        var copying = 0
        let keeping = min(objects.maxBytes, Defaults.keptBytes)
        defer { copies.giveBack(copying) }
        let streamed = objects.stream(key, fields: fields, prefixLength: ImageFormat.sniffLength, keeping: keeping, answered: { response in
            guard response.status == 200 || response.status == 206 else {
                other = response
                return nil
            }
            do {
                let head = response.status == 200 ? try wholeHead(response, key: key) : try partialHead(response, key: key)
                let length = head.length
                if response.status == 200 {
                    // A new version is known once it is kept (so a download cut short, or a
                    // HEAD, leaves it to the next); any other at once.
                    if head.isNew && length <= keeping && copies.take(Int(length)) {
                        copying = Int(length)
                        kept = head.version
                    } else {
                        objects.remember(key, head.version)
                    }
                }
                let body = BodyStream(patience: Defaults.patience)
                var answer = HTTPResponse(status: response.status == 200 ? .ok : .partialContent, headers: head.fields,
                                          body: .stream(body, count: length))
                if length == 0 { answer.body = .empty }
                responder.respond(answer)
                return S3Client.StreamTarget(stream: body, keepsWhole: kept != nil)
            } catch {
                responder.respond(Problems.response(for: error))
                return nil
            }
        }, whole: { bytes in
            if let version = kept { objects.hold(key, bytes: bytes, version: version) }
        })
        switch streamed {
        case .success: return .success(other)
        case .failure(let error): return .failure(error)
        }
    }

    /// The head of a 200: the format from the first bytes, the store's validators.
    private func wholeHead(_ response: S3Response, key: String) throws(S3Error) -> StreamedHead {
        guard let format = ImageFormat.sniff(response.body) else { throw .notAnImage }
        guard let version = response.version(format: format) else { throw .unavailable("the store sent no ETag") }
        guard let length = response.contentLength else { throw .unavailable("the store sent no Content-Length") }
        var headers = validators(version)
        headers.add(.contentType, format.mediaType)
        return StreamedHead(version: version, fields: headers, length: length, isNew: !objects.hasSeen(key, version))
    }

    /// The head of a 206 of one range, with the store's Content-Range.
    private func partialHead(_ response: S3Response, key: String) throws(S3Error) -> StreamedHead {
        guard let range = response.contentRange, let etag = response.etag, var version = response.version(format: nil),
              let length = response.contentLength else {
            throw .unavailable("the store's partial answer lacks Content-Range, Content-Length or ETag")
        }
        let format = try sniffedFormat(of: key, etag: etag, startingWith: range.hasPrefix("bytes 0-") ? response.body : [])
        version.format = format
        objects.remember(key, version)
        var headers = validators(version)
        headers.add(.contentType, format.mediaType)
        headers.add(.contentRange, range)
        return StreamedHead(version: version, fields: headers, length: length, isNew: false)
    }

    /// What the store answered other than a 200 or 206 (a 304, 412, 416 or an error).
    private func answer(_ response: S3Response, key: String, request: HTTPRequest) -> HTTPResponse {
        do {
            switch response.status {
            case 304: return try notModified(response, key: key, request: request)
            case 412: return ProblemDetails(.preconditionFailed, detail: "a precondition (If-Match or If-Unmodified-Since) does not hold").response
            case 416: return try rangeNotSatisfiable(key: key)
            default: throw response.failure
            }
        } catch {
            return Problems.response(for: error)
        }
    }

    /// The store could not be asked: the original kept, if any, else the problem.
    private func unavailable(_ error: S3Error, key: String, request: HTTPRequest) -> HTTPResponse {
        if error.isUnavailable, let kept = objects.kept(key), let format = kept.original.version.format {
            objects.staleServed.increment()
            return representation(kept.original.bytes, format: format, version: kept.original.version).response(to: request)
        }
        return Problems.response(for: error)
    }

    /// Several ranges: the whole object into memory, the ranges cut here.
    private func response(to request: HTTPRequest, key: String) -> HTTPResponse {
        let response: S3Response
        switch objects.object(key, fields: S3Forwarding(request).withoutRange) {
        case .success(let answer): response = answer
        case .failure(let error): return unavailable(error, key: key, request: request)
        }
        guard response.status == 200 else { return answer(response, key: key, request: request) }
        do {
            return try whole(response, key: key, to: request)
        } catch {
            return Problems.response(for: error)
        }
    }

    /// A 200 read whole: kept as the original, and answered by thumbd's own rules (which agree
    /// with the store's on the conditions, and apply several ranges).
    private func whole(_ response: S3Response, key: String, to request: HTTPRequest) throws(S3Error) -> HTTPResponse {
        guard let format = ImageFormat.sniff(response.body) else { throw .notAnImage }
        guard let version = response.version(format: format) else { throw .unavailable("the store sent no ETag") }
        objects.keep(key, bytes: response.body, version: version)
        return representation(response.body, format: format, version: version).response(to: request)
    }

    /// A 304. The store sends no validators with it: the ETag is the one the client's
    /// If-None-Match named, when it named one, else the store is asked with a HEAD.
    private func notModified(_ response: S3Response, key: String, request: HTTPRequest) throws(S3Error) -> HTTPResponse {
        var version: SourceVersion?
        if let field = request.headers[.ifNoneMatch], case .tags(let tags) = EntityTag.List(parsing: field), tags.count == 1 {
            let tag = S3Objects.versionTag(etag: EntityTag(tags[0].opaque).description)
            version = objects.lastVersion(key).flatMap { $0.tag == tag ? $0 : nil }
                ?? SourceVersion(tag: tag, format: nil, lastModified: 0, byteCount: nil)
        }
        if version == nil { version = try head(key) }
        return HTTPResponse(status: .notModified, headers: validators(version!))
    }

    /// A 416: its Content-Range names the object's length, which the store's 416 does not.
    private func rangeNotSatisfiable(key: String) throws(S3Error) -> HTTPResponse {
        let length = try head(key).byteCount ?? 0
        var response = ProblemDetails(.rangeNotSatisfiable, detail: "no requested range starts before byte \(length)").response
        response.headers.set(.contentRange, "bytes */\(length)")
        return response
    }

    /// The object's version now, from a HEAD.
    private func head(_ key: String) throws(S3Error) -> SourceVersion {
        let response = try objects.object(key, head: true).get()
        guard response.status == 200 else { throw response.failure }
        guard let version = response.version(format: nil) else { throw .unavailable("the store sent no ETag") }
        objects.remember(key, version)
        return version
    }

    /// The format of `key` at `etag`: from the bytes when they start the object, from what is
    /// known of that version, else from the object's first bytes, asked on condition that it is
    /// still that version.
    private func sniffedFormat(of key: String, etag: String, startingWith bytes: [UInt8]) throws(S3Error) -> ImageFormat {
        if bytes.count >= ImageFormat.sniffLength, let format = ImageFormat.sniff(bytes) { return format }
        if let known = objects.lastVersion(key), known.tag == S3Objects.versionTag(etag: etag), let format = known.format { return format }
        let first = try objects.object(key, fields: [(.range, "bytes=0-\(ImageFormat.sniffLength - 1)"), (.ifMatch, etag)]).get()
        switch first.status {
        case 200, 206: break
        case 412: throw .changed
        default: throw first.failure
        }
        guard let format = ImageFormat.sniff(first.body) else { throw .notAnImage }
        return format
    }

    /// The fields a 200, 206 and 304 share: the image fields, then the validators.
    private func validators(_ version: SourceVersion) -> HTTPHeaders {
        var headers = fields.headers(for: version.format?.mediaType ?? "")
        if let etag = version.storeETag { headers.add(.etag, etag) }
        if let date = ThumbnailPresenter.timestamp(version.lastModified) { headers.add(.lastModified, date.httpDate) }
        headers.add(.acceptRanges, "bytes")
        return headers
    }

    private func representation(_ bytes: [UInt8], format: ImageFormat, version: SourceVersion) -> Representation {
        Representation(contentType: format.mediaType, body: .bytes(bytes), etag: version.storeETag.flatMap { EntityTag(parsing: $0) },
                       lastModified: ThumbnailPresenter.timestamp(version.lastModified), headers: fields.headers(for: format.mediaType))
    }
}

/// The fields of a streamed answer, the version they name and the body's length.
private struct StreamedHead {
    let version: SourceVersion
    let fields: HTTPHeaders
    let length: Int64
    /// Nothing was known of this version before: its bytes are worth keeping.
    let isNew: Bool
}
