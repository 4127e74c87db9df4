import HTTP
import Imaging
import Video
import WireCoding

extension FetchedOriginals where Store == S3Bucket {
    /// The object `key` read by ranges when it is a video (`RangedReads`), with its version;
    /// nil when it is not one, cannot be asked, or is to be read whole. A version known with its
    /// format decides. Else, for an object known to be over `limits.max_source_bytes` (which
    /// could not be read whole anyway) or with `asking` (a whole read was just refused), its
    /// first bytes are asked for (`If-Match` the version known, if any): they tell its format,
    /// and the answer's fields its version. Anything else is read whole as before, a video
    /// within the limit too (and kept in the originals tier). Blocking.
    package func videoReader(_ key: String, asking: Bool = false) -> (reader: VideoReader, version: SourceVersion)? {
        let known = freshVersion(key) ?? ((try? currentVersion(key).get()) ?? nil)
        if let known, let format = known.format {
            guard format.isVideo, let length = known.byteCount, length > maxBytes || asking else { return nil }
            return rangedReader(key, version: known, length: length).map { ($0, known) }
        }
        guard asking || (known?.byteCount ?? 0) > maxBytes else { return nil }
        var fields: [(HTTPFieldName, String)] = [(.range, "bytes=0-\(ImageFormat.sniffLength - 1)")]
        if let etag = known?.storeETag { fields.append((.ifMatch, etag)) }
        guard case .success(let head) = object(key, fields: fields, bodyLimit: ImageFormat.sniffLength), head.status == 206,
              let format = ImageFormat.sniff(head.body), format.isVideo,
              let version = head.version(format: format), let length = version.byteCount
        else { return nil }
        // Known as a video from now on: later misses and the listing read it in parts at once.
        remember(key, version)
        return rangedReader(key, version: version, length: length).map { ($0, version) }
    }

    /// `key` at `version` read by ranged GETs, each `If-Match` its ETag.
    private func rangedReader(_ key: String, version: SourceVersion, length: Int) -> VideoReader? {
        guard let etag = version.storeETag else { return nil }
        return RangedReads.reader(length: length) { [self] first, last in
            guard case .success(let response) = object(key, fields: [(.range, "bytes=\(first)-\(last)"), (.ifMatch, etag)],
                                                        bodyLimit: last - first + 1),
                  response.status == 206, let range = response.contentRange.flatMap(ContentRange.init(parsing:)),
                  range.first == first, range.last == last else { return nil }
            return response.body
        }
    }
}
