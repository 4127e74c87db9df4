import FileSystem

/// Response content as a list of segments written in order: bytes in memory (shared, never
/// copied per request), regions of an open file (sent with sendfile), or bytes that arrive
/// while they are sent (a `BodyStream` of a known length).
public struct ResponseBody: Sendable {
    public enum Segment: Sendable {
        case bytes(ArraySlice<UInt8>)
        case file(OpenFile, offset: Int64, count: Int64)
        /// The next `count` bytes of a stream. Sent whole: a range of it is the producer's to ask for.
        case stream(BodyStream.Reader, count: Int64)

        public var count: Int64 {
            switch self {
            case .bytes(let b): Int64(b.count)
            case .file(_, _, let n): n
            case .stream(_, let n): n
            }
        }

        /// The sub-range `range` (relative to this segment) of the segment. A stream's bytes
        /// cannot be skipped: its only range is the whole of it.
        package func slice(_ range: Range<Int64>) -> Segment {
            switch self {
            case .stream(_, let n):
                precondition(range == 0..<n, "a streamed body is sent whole")
                return self
            case .bytes(let b):
                let start = b.startIndex + Int(range.lowerBound)
                return .bytes(b[start..<(start + Int(range.count))])
            case .file(let f, let offset, _):
                return .file(f, offset: offset + range.lowerBound, count: Int64(range.count))
            }
        }
    }

    public private(set) var segments: [Segment]
    public private(set) var count: Int64

    public init(segments: [Segment] = []) {
        self.segments = segments.filter { $0.count > 0 }
        self.count = segments.reduce(0) { $0 + $1.count }
    }

    public static let empty = ResponseBody()

    public static func bytes(_ bytes: [UInt8]) -> ResponseBody { ResponseBody(segments: [.bytes(bytes[...])]) }

    public static func text(_ text: String) -> ResponseBody { .bytes(Array(text.utf8)) }

    public static func file(_ file: OpenFile, offset: Int64 = 0, count: Int64) -> ResponseBody {
        ResponseBody(segments: [.file(file, offset: offset, count: count)])
    }

    /// The `count` bytes `stream` will deliver.
    public static func stream(_ stream: BodyStream, count: Int64) -> ResponseBody {
        ResponseBody(segments: [.stream(stream.makeReader(), count: count)])
    }

    public mutating func append(_ segment: Segment) {
        guard segment.count > 0 else { return }
        segments.append(segment)
        count += segment.count
    }

    /// The bytes `range` of this body, sharing storage.
    public func slice(_ range: Range<Int64>) -> ResponseBody {
        var result = ResponseBody()
        var position: Int64 = 0
        for segment in segments {
            let segmentRange = position..<(position + segment.count)
            position = segmentRange.upperBound
            let overlap = segmentRange.clamped(to: range)
            guard !overlap.isEmpty else { continue }
            result.append(segment.slice((overlap.lowerBound - segmentRange.lowerBound)..<(overlap.upperBound - segmentRange.lowerBound)))
        }
        return result
    }
}
