import HTTP
import Imaging
import ThumbdCore
import WireCoding

/// `/img/{path}` without parameters from a bucket: the client's `Range` and conditions go to
/// the store (`S3Forwarding`), so a client resumes an original straight from it, and the
/// store's answer becomes thumbd's own: `Content-Type` from the bytes, the store's (strong)
/// ETag and Last-Modified, `Cache-Control` and the other image fields, a problem for errors.
/// The answer is fetched into memory on a worker thread, within `limits.max_source_bytes`
/// (the HTTP core sends bytes or files, not streams; see docs/deployment.md, S3 library). A whole
/// object fetched this way is kept as the original thumbnails are made from. While the store
/// is down the original kept, if any, is answered.
struct S3Passthrough: Sendable {
    let objects: S3Objects
    let fields: ImageFields

    /// Worker thread: the answer to `request` for the object `key`.
    func response(to request: HTTPRequest, key: String) -> HTTPResponse {
        let forwarding = S3Forwarding(request)
        var asked = objects.object(key, fields: forwarding.fields)
        if forwarding.rangeIsConditional, case .success(let response) = asked, response.status == 412 {
            // If-Range did not hold: the whole object, and the range decided here.
            asked = objects.object(key, fields: forwarding.withoutRange)
        }
        let response: S3Response
        switch asked {
        case .success(let answer): response = answer
        case .failure(let error):
            if error.isUnavailable, let kept = objects.kept(key), let format = kept.original.version.format {
                objects.staleServed.increment()
                return representation(kept.original.bytes, format: format, version: kept.original.version).response(to: request)
            }
            return Problems.response(for: error)
        }
        do {
            switch response.status {
            case 200: return try whole(response, key: key, to: request)
            case 206: return try partial(response, key: key)
            case 304: return try notModified(response, key: key, request: request)
            case 412: return ProblemDetails(.preconditionFailed, detail: "a precondition (If-Match or If-Unmodified-Since) does not hold").response
            case 416: return try rangeNotSatisfiable(key: key)
            default: throw response.failure
            }
        } catch {
            return Problems.response(for: error)
        }
    }

    /// A 200: the whole object, kept as the original, and answered by thumbd's own rules
    /// (which agree with the store's on the conditions, and apply several ranges).
    private func whole(_ response: S3Response, key: String, to request: HTTPRequest) throws(S3Error) -> HTTPResponse {
        guard let format = ImageFormat.sniff(response.body) else { throw .notAnImage }
        guard let version = response.version(format: format) else { throw .unavailable("the store sent no ETag") }
        objects.keep(key, bytes: response.body, version: version)
        return representation(response.body, format: format, version: version).response(to: request)
    }

    /// A 206 of one range, with the store's Content-Range.
    private func partial(_ response: S3Response, key: String) throws(S3Error) -> HTTPResponse {
        guard let range = response.contentRange, let etag = response.etag, var version = response.version(format: nil) else {
            throw .unavailable("the store's partial answer lacks Content-Range or ETag")
        }
        let format = try sniffedFormat(of: key, etag: etag, startingWith: range.hasPrefix("bytes 0-") ? response.body : [])
        version.format = format
        objects.remember(key, version)
        var headers = validators(version)
        headers.add(.contentType, format.mediaType)
        headers.add(.contentRange, range)
        return HTTPResponse(status: .partialContent, headers: headers, body: .bytes(response.body))
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
