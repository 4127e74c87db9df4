import WireCoding

/// The on-disk form of one entry: a self-describing header, then the body.
///
///     "TDC1" | header length u32 | body length u64 | body CRC-32C u32 | last-modified i64
///     | key, content type, ETag (u32 length + UTF-8 each) | header CRC-32C u32 | body
///
/// Little-endian. Both CRCs and the lengths are checked on read: a torn, truncated or
/// altered file, or one written for another key (a hash collision), decodes to nil.
public enum CacheEntryCodec {
    static let magic: [UInt8] = Array("TDC1".utf8)

    public static func encode(key: CacheKey, variant: CachedVariant) -> [UInt8] {
        header(key: key, variant: variant) + variant.bytes
    }

    /// The header alone: written before the variant's own bytes, so an entry is stored
    /// without a copy of its body (thumbnails of a few thousand pixels are megabytes).
    public static func header(key: CacheKey, variant: CachedVariant) -> [UInt8] {
        var header: [UInt8] = []
        header += magic
        header.appendLittleEndian(UInt32(0))  // header length, patched below
        header.appendLittleEndian(UInt64(variant.bytes.count))
        header.appendLittleEndian(checksum(variant.bytes))
        header.appendLittleEndian(UInt64(bitPattern: Int64(variant.lastModified)))
        for text in [key.text, variant.contentType, variant.etag] {
            let utf8 = Array(text.utf8)
            header.appendLittleEndian(UInt32(utf8.count))
            header += utf8
        }
        let headerLength = header.count + 4
        header.storeLittleEndian(UInt32(headerLength), at: 4)
        header.appendLittleEndian(checksum(header))
        return header
    }

    public enum Failure: Error, Equatable {
        case corrupt(String)
        case otherKey
    }

    public static func decode(_ data: [UInt8], expecting key: CacheKey) -> Result<CachedVariant, Failure> {
        var reader = LittleEndianReader(data)
        guard let m = reader.bytes(4), m == magic else { return .failure(.corrupt("bad magic")) }
        guard let headerLength = reader.uint32().map(Int.init), headerLength >= 36, headerLength <= data.count,
              let bodyLength = reader.uint64(), let bodyCRC = reader.uint32(), let modified = reader.uint64(),
              let keyText = reader.string(), let contentType = reader.string(), let etag = reader.string(),
              reader.position + 4 == headerLength, let headerCRC = reader.uint32()
        else { return .failure(.corrupt("bad header")) }
        guard checksum(data[0..<(headerLength - 4)]) == headerCRC else { return .failure(.corrupt("header checksum")) }
        guard UInt64(data.count - headerLength) == bodyLength else { return .failure(.corrupt("body length")) }
        guard checksum(data[headerLength...]) == bodyCRC else { return .failure(.corrupt("body checksum")) }
        let body = Array(data[headerLength...])
        guard keyText == key.text else { return .failure(.otherKey) }
        return .success(CachedVariant(bytes: body, contentType: contentType, etag: etag, lastModified: Int(Int64(bitPattern: modified))))
    }

    /// The full key an entry was written for, from its first bytes (enough to hold the
    /// header); nil when they are not a well-formed header.
    public static func keyText(_ head: [UInt8]) -> String? {
        var reader = LittleEndianReader(head)
        guard let m = reader.bytes(4), m == magic, let headerLength = reader.uint32().map(Int.init), headerLength >= 36,
              headerLength <= head.count, reader.uint64() != nil, reader.uint32() != nil, reader.uint64() != nil, let key = reader.string()
        else { return nil }
        var tail = LittleEndianReader(head, at: headerLength - 4)
        guard checksum(head[0..<(headerLength - 4)]) == tail.uint32() else { return nil }
        return key
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { CRC32C.checksum($0) }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        CRC32C.checksum(bytes)
    }
}

private extension LittleEndianReader {
    /// A u32 length and that many bytes of UTF-8, at most 64 KiB.
    mutating func string() -> String? {
        guard let n = uint32(), n <= 64 * 1024, let raw = bytes(Int(n)) else { return nil }
        return String(validating: raw, as: UTF8.self)
    }
}
