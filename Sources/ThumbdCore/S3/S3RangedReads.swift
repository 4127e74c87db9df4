import HTTP
import Imaging
import Video

/// An S3 object read where FFmpeg asks (a video's index, then the bytes from a keyframe on), by
/// ranged GETs of whole blocks through the store's health, each with `If-Match` on the version's
/// ETag, so a rewrite midway fails the read instead of mixing two versions. The last few blocks
/// are kept: FFmpeg reads the same region in small steps and seeks back. One thread uses it.
package final class S3RangedReads {
    package static let blockSize = 1 << 20
    static let keptBlocks = 8

    private let objects: S3Objects
    private let key: String
    private let etag: String
    private var blocks: [Int: [UInt8]] = [:]
    private var order: [Int] = []
    /// Body bytes the store sent.
    private(set) var fetched = 0

    /// A reader of `key` at `version` (its ETag), `length` bytes long.
    package static func reader(_ objects: S3Objects, key: String, version: SourceVersion, length: Int) -> VideoReader? {
        guard let etag = version.storeETag else { return nil }
        let reads = S3RangedReads(objects: objects, key: key, etag: etag)
        return VideoReader(length: length, read: { offset, buffer in reads.read(at: offset, into: buffer, length: length) },
                           fetched: { reads.fetched })
    }

    private init(objects: S3Objects, key: String, etag: String) {
        self.objects = objects
        self.key = key
        self.etag = etag
    }

    private func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard offset < length else { return 0 }
        let index = offset / Self.blockSize
        guard let block = blocks[index] ?? fetch(index, length: length) else { return nil }
        let start = offset - index * Self.blockSize
        let count = min(buffer.count, block.count - start)
        guard count > 0 else { return 0 }
        block.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
        return count
    }

    private func fetch(_ index: Int, length: Int) -> [UInt8]? {
        let first = index * Self.blockSize, last = min(length, first + Self.blockSize) - 1
        guard case .success(let response) = objects.object(key, fields: [(.range, "bytes=\(first)-\(last)"), (.ifMatch, etag)]),
              response.status == 206 || (response.status == 200 && first == 0), response.body.count >= last - first + 1
        else { return nil }
        let block = response.status == 206 ? response.body : Array(response.body[first...last])
        fetched += response.body.count
        blocks[index] = block
        order.append(index)
        if order.count > Self.keptBlocks { blocks[order.removeFirst()] = nil }
        return block
    }
}

extension FetchedOriginals where Store == S3Bucket {
    /// The object `key` read by ranges when it is a video (`S3RangedReads`), with its version;
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
            return S3RangedReads.reader(self, key: key, version: known, length: length).map { ($0, known) }
        }
        guard asking || (known?.byteCount ?? 0) > maxBytes else { return nil }
        var fields: [(HTTPFieldName, String)] = [(.range, "bytes=0-\(ImageFormat.sniffLength - 1)")]
        if let etag = known?.storeETag { fields.append((.ifMatch, etag)) }
        guard case .success(let head) = object(key, fields: fields), head.status == 206,
              let format = ImageFormat.sniff(head.body), format.isVideo,
              let version = head.version(format: format), let length = version.byteCount
        else { return nil }
        return S3RangedReads.reader(self, key: key, version: version, length: length).map { ($0, version) }
    }
}
