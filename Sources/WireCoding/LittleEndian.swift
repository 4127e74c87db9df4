/// Fixed-width integers as little-endian bytes, written and read back: the disk tier's entry
/// files (`CacheEntryCodec`) and the frames between the server and its SVG and PDF renderers.
extension Array where Element == UInt8 {
    public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Writes `value` over the bytes at `offset` (a length patched in once it is known).
    public mutating func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value.littleEndian) { replaceSubrange(offset..<(offset + $0.count), with: $0) }
    }
}

/// Reads bytes and little-endian integers from the front of `bytes`, each read nil (and
/// nothing consumed) when too few bytes are left.
public struct LittleEndianReader {
    public let bytes: [UInt8]
    /// Where the next read starts.
    public private(set) var position: Int

    public init(_ bytes: [UInt8], at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    public mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, position + count <= bytes.count else { return nil }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    public mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard position + size <= bytes.count else { return nil }
        var value: T = 0
        for i in 0..<size { value |= T(truncatingIfNeeded: bytes[position + i]) << (8 * i) }
        position += size
        return value
    }

    public mutating func uint8() -> UInt8? { integer() }
    public mutating func uint16() -> UInt16? { integer() }
    public mutating func uint32() -> UInt32? { integer() }
    public mutating func uint64() -> UInt64? { integer() }
}
