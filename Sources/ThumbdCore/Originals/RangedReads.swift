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
