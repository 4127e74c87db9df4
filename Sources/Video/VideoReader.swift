/// Where FFmpeg reads a video's bytes: in memory, or any reader (a library file by `pread`, an
/// S3 object or a remote original by ranged GETs: `ThumbdCore` makes them). Counts what it was
/// asked for, so a test or a benchmark can tell how much of a video a frame cost. Used by one
/// thread at a time.
public final class VideoReader {
    public let length: Int
    /// Bytes handed to FFmpeg, and calls that handed them.
    public private(set) var bytesRead = 0
    public private(set) var reads = 0
    /// Bytes taken from the source itself: `bytesRead`, unless the reader fetches more than it
    /// hands out (whole blocks of an S3 object).
    public var bytesFetched: Int { fetched?() ?? bytesRead }
    private let readAt: (_ offset: Int, _ into: UnsafeMutableRawBufferPointer) -> Int?
    private let fetched: (() -> Int)?

    /// `read(offset, buffer)` copies up to `buffer.count` bytes from `offset` and says how many
    /// (0 only at the end), or nil when they cannot be read; `fetched`, when the reader takes
    /// more from its source than it hands out, says how much.
    public init(length: Int, read: @escaping (_ offset: Int, _ into: UnsafeMutableRawBufferPointer) -> Int?,
                fetched: (() -> Int)? = nil) {
        self.length = length
        readAt = read
        self.fetched = fetched
    }

    public convenience init(bytes: [UInt8]) {
        self.init(length: bytes.count) { offset, buffer in
            let count = min(buffer.count, bytes.count - offset)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            return count
        }
    }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let n = readAt(offset, buffer) else { return nil }
        bytesRead += n
        reads += 1
        return n
    }
}
