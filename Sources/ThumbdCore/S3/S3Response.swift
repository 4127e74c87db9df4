import Imaging
import WireCoding

/// What the store answered one request: any status, the fields thumbd reads, and the body (an
/// object's bytes, a listing's XML, or an error's XML).
package struct S3Response: Sendable {
    package var status: Int
    package var body: [UInt8]
    /// As sent, quoted: `"9b2cf535f27731c974343645a3985328"`.
    package var etag: String?
    package var lastModified: String?
    package var contentType: String?
    package var contentLength: Int64?
    /// `bytes 0-9/5000` on a 206.
    package var contentRange: String?

    /// S3's error code from an error's XML body (`NoSuchKey`, `SignatureDoesNotMatch`, ...).
    package var errorCode: String? { S3XML.texts("Code", in: String(decoding: body, as: UTF8.self)).first }

    /// The error this answer is, for a status the caller does not take as an answer.
    package var failure: S3Error {
        let code = errorCode
        switch status {
        case 404 where code == nil || code == "NoSuchKey": return .notFound
        case 500...: return .unavailable("the store answered \(status)\(code.map { " \($0)" } ?? "")")
        default: return .refused(status: status, code: code ?? "HTTP \(status)")
        }
    }

    /// The store refused the request's credentials or policy (401, 403): an operator's to mend,
    /// never an outage.
    package var isDenial: Bool { status == 401 || status == 403 }

    /// The object's whole length: from `Content-Range` on a 206, `Content-Length` otherwise.
    package var completeLength: Int64? {
        if let range = contentRange, let slash = range.lastIndex(of: "/") { return Int64(range[range.index(after: slash)...]) }
        return contentLength
    }

    /// The version these fields name (ETag, Last-Modified, length), in the format given.
    package func version(format: ImageFormat?) -> SourceVersion? {
        guard let etag, !etag.isEmpty else { return nil }
        return SourceVersion(tag: S3Objects.versionTag(etag: etag), format: format,
                             lastModified: lastModified.flatMap { HTTPDate.parse($0) } ?? 0,
                             byteCount: completeLength.map { Int($0) })
    }

    package init(status: Int, body: [UInt8], etag: String? = nil, lastModified: String? = nil, contentType: String? = nil, contentLength: Int64? = nil, contentRange: String? = nil) {
        self.status = status
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.contentLength = contentLength
        self.contentRange = contentRange
    }
}
