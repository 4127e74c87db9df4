import HTTP
import Imaging
import Video
import WireCoding

/// An original in a store read where FFmpeg asks (a video's index, then the bytes from a
/// keyframe on), by ranged requests of whole blocks that check they still read the same version
/// (an S3 object's `If-Match`, an origin's ETag compared), so a rewrite midway fails the read
/// instead of mixing two versions. The last few blocks are kept: FFmpeg reads the same region
/// in small steps and seeks back. One thread uses it.
package final class RangedReads {
    package static let blockSize = 1 << 20
    static let keptBlocks = 8

    /// Bytes `first...last` of the version read, or nil when they cannot be had as that version.
    package typealias Fetch = (_ first: Int, _ last: Int) -> [UInt8]?

    private let fetchBlock: Fetch
    private var blocks: [Int: [UInt8]] = [:]
    private var order: [Int] = []
    /// Body bytes the store sent.
    private(set) var fetched = 0

    /// A reader of `length` bytes; `first`, when given, is the first block as already fetched.
    package static func reader(length: Int, first: [UInt8]? = nil, fetch: @escaping Fetch) -> VideoReader {
        let reads = RangedReads(fetch: fetch)
        if let first, first.count == min(length, blockSize) {
            reads.keep(0, first)
            reads.fetched = first.count
        }
        return VideoReader(length: length, read: { offset, buffer in reads.read(at: offset, into: buffer, length: length) },
                           fetched: { reads.fetched })
    }

    private init(fetch: @escaping Fetch) {
        fetchBlock = fetch
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
        guard let block = fetchBlock(first, last), block.count == last - first + 1 else { return nil }
        fetched += block.count
        keep(index, block)
        return block
    }

    private func keep(_ index: Int, _ block: [UInt8]) {
        blocks[index] = block
        order.append(index)
        if order.count > Self.keptBlocks { blocks[order.removeFirst()] = nil }
    }
}

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
