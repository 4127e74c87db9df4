import WireCoding

/// What the server asks a renderer process: the header of a page, or the page drawn at a scale.
/// Sent as one frame on the renderer's stdin: a fixed head (little-endian) and the document's
/// bytes. (The CPU and memory it may spend on it the server sets itself, as the renderer's
/// rlimits, before it sends the frame.)
public struct RenderRequest: Sendable, Equatable {
    public enum Operation: UInt8, Sendable {
        case header = 1
        case draw = 2
        /// The renderer tries what its sandbox must refuse and says how each went (the tests
        /// check the sandbox of the real process with it).
        case checkSandbox = 3
    }

    public var operation: Operation
    /// From 1.
    public var page: Int
    /// Of the page's nominal size (draw only).
    public var scale: Double
    /// A drawing with more pixels is refused before it is drawn (draw only).
    public var maxPixels: Int
    public var document: [UInt8]

    public init(operation: Operation, page: Int, scale: Double = 1, maxPixels: Int = 0, document: [UInt8]) {
        self.operation = operation
        self.page = page
        self.scale = scale
        self.maxPixels = maxPixels
        self.document = document
    }

    static let magic: [UInt8] = Array("TVRQ".utf8)
    /// magic, operation, page, scale, max pixels, document length.
    public static let headLength = 4 + 1 + 4 + 8 + 8 + 8
    /// The longest document a renderer reads: far over `limits.max_source_bytes`' range.
    public static let maxDocument = 1 << 34

    /// The frame's head; the document follows it.
    public var head: [UInt8] {
        var bytes = Self.magic
        bytes.append(operation.rawValue)
        bytes.appendLittleEndian(UInt32(clamping: page))
        bytes.appendLittleEndian(scale.bitPattern)
        bytes.appendLittleEndian(UInt64(clamping: maxPixels))
        bytes.appendLittleEndian(UInt64(document.count))
        return bytes
    }

    /// A head read back: the request without its document, and the document's length; nil for
    /// bytes that are no such head.
    public static func parse(head bytes: [UInt8]) -> (request: RenderRequest, documentLength: Int)? {
        guard bytes.count == headLength else { return nil }
        var reader = LittleEndianReader(bytes)
        guard reader.bytes(4) == magic, let operation = reader.uint8().flatMap(Operation.init(rawValue:)),
              let page = reader.uint32().map(Int.init), let scale = reader.uint64().map(Double.init(bitPattern:)),
              let maxPixels = reader.uint64(), let length = reader.uint64() else { return nil }
        guard page >= 1, scale.isFinite, scale > 0, maxPixels <= UInt64(Int.max), length <= UInt64(maxDocument) else { return nil }
        return (RenderRequest(operation: operation, page: page, scale: scale, maxPixels: Int(maxPixels), document: []), Int(length))
    }
}
