/// What the server asks a renderer process: the header of a page, or the page drawn at a scale,
/// within the CPU and memory the renderer may spend on it. Sent as one frame on the renderer's
/// stdin: a fixed head (little-endian) and the document's bytes.
public struct RenderRequest: Sendable, Equatable {
    public enum Operation: UInt8, Sendable {
        case header = 1
        case draw = 2
    }

    public var operation: Operation
    /// From 1.
    public var page: Int
    /// Of the page's nominal size (draw only).
    public var scale: Double
    /// A drawing with more pixels is refused before it is drawn (draw only).
    public var maxPixels: Int
    /// CPU seconds the renderer may spend on it (its RLIMIT_CPU from now).
    public var cpuSeconds: Double
    /// Bytes its address space may grow by meanwhile (its RLIMIT_AS from now).
    public var memoryBytes: Int
    public var document: [UInt8]

    public init(operation: Operation, page: Int, scale: Double = 1, maxPixels: Int = 0, cpuSeconds: Double, memoryBytes: Int,
                document: [UInt8]) {
        self.operation = operation
        self.page = page
        self.scale = scale
        self.maxPixels = maxPixels
        self.cpuSeconds = cpuSeconds
        self.memoryBytes = memoryBytes
        self.document = document
    }

    static let magic: [UInt8] = Array("TVRQ".utf8)
    /// magic, operation, page, scale, max pixels, CPU milliseconds, memory, document length.
    public static let headLength = 4 + 1 + 4 + 8 + 8 + 4 + 8 + 8
    /// The longest document a renderer reads: far over `limits.max_source_bytes`' range.
    public static let maxDocument = 1 << 34

    /// The frame's head; the document follows it.
    public var head: [UInt8] {
        var bytes = Self.magic
        bytes.append(operation.rawValue)
        bytes.appendLittleEndian(UInt32(clamping: page))
        bytes.appendLittleEndian(scale.bitPattern)
        bytes.appendLittleEndian(UInt64(clamping: maxPixels))
        bytes.appendLittleEndian(UInt32(clamping: Int((cpuSeconds * 1000).rounded(.up))))
        bytes.appendLittleEndian(UInt64(clamping: memoryBytes))
        bytes.appendLittleEndian(UInt64(document.count))
        return bytes
    }

    /// A head read back: the request without its document, and the document's length; nil for
    /// bytes that are no such head.
    public static func parse(head bytes: [UInt8]) -> (request: RenderRequest, documentLength: Int)? {
        guard bytes.count == headLength, Array(bytes[0..<4]) == magic,
              let operation = Operation(rawValue: bytes[4]) else { return nil }
        var reader = LittleEndianReader(bytes, at: 5)
        let page = Int(reader.uint32()), scale = Double(bitPattern: reader.uint64()), maxPixels = reader.uint64()
        let cpu = Double(reader.uint32()) / 1000, memory = reader.uint64(), length = reader.uint64()
        guard page >= 1, scale.isFinite, scale > 0, maxPixels <= UInt64(Int.max), memory <= UInt64(Int.max),
              length <= UInt64(maxDocument) else { return nil }
        return (RenderRequest(operation: operation, page: page, scale: scale, maxPixels: Int(maxPixels), cpuSeconds: cpu,
                              memoryBytes: Int(memory), document: []), Int(length))
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads fixed-width integers from bytes whose length the caller checked.
struct LittleEndianReader {
    private let bytes: [UInt8]
    private var offset: Int

    init(_ bytes: [UInt8], at offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    private mutating func read<T: FixedWidthInteger>(_: T.Type) -> T {
        var value: T = 0
        for i in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + i]) << (8 * i) }
        offset += MemoryLayout<T>.size
        return value
    }

    mutating func uint8() -> UInt8 { read(UInt8.self) }
    mutating func uint16() -> UInt16 { read(UInt16.self) }
    mutating func uint32() -> UInt32 { read(UInt32.self) }
    mutating func uint64() -> UInt64 { read(UInt64.self) }
}
