import Foundation
import WireCoding

/// The file format of the disk tier, for complete responses and partial downloads alike:
///
///     magic "THUMBDK2" | header length u32 | body length u64 | header CRC-32C | body CRC-32C | header | body
///
/// (integers big-endian; the header is JSON). A file whose size, magic or either checksum does
/// not match is refused, so a torn or damaged file is never served.
enum DiskRecord {
    // "2": CRC-32C (the server's checksum, from WireCoding) replaced CRC-32; files of version 1
    // fail the magic check and are dropped like damaged ones.
    static let magic = Data("THUMBDK2".utf8)
    static let prefixLength = 8 + 4 + 8 + 4 + 4

    struct Header: Codable, Sendable {
        enum Kind: String, Codable, Sendable {
            case response, partial
        }

        var kind: Kind
        /// The full cache key: file names are hashes, so the key is checked on read.
        var key: String
        var response: CachedResponseInfo?
        var partial: PartialDownload.Info?
    }

    static func encode(_ header: Header, body: Data) -> Data? {
        guard let headerData = try? JSONEncoder().encode(header) else { return nil }
        var file = Data(capacity: prefixLength + headerData.count + body.count)
        file.append(magic)
        append(UInt64(headerData.count), bytes: 4, to: &file)
        append(UInt64(body.count), bytes: 8, to: &file)
        append(UInt64(checksum(headerData)), bytes: 4, to: &file)
        append(UInt64(checksum(body)), bytes: 4, to: &file)
        file.append(headerData)
        file.append(body)
        return file
    }

    /// The header and body of a file, or nil when any check fails.
    static func decode(_ file: Data) -> (header: Header, body: Data)? {
        let bytes = [UInt8](file.prefix(prefixLength))
        guard bytes.count == prefixLength, Data(bytes[0..<8]) == magic else { return nil }
        let headerLength = Int(read(bytes, at: 8, count: 4))
        let bodyLength = read(bytes, at: 12, count: 8)
        guard bodyLength <= UInt64(Int.max - prefixLength - headerLength),
              file.count == prefixLength + headerLength + Int(bodyLength)
        else { return nil }
        let start = file.startIndex + prefixLength
        let headerData = file.subdata(in: start..<(start + headerLength))
        let body = file.subdata(in: (start + headerLength)..<file.endIndex)
        guard UInt64(checksum(headerData)) == read(bytes, at: 20, count: 4),
              UInt64(checksum(body)) == read(bytes, at: 24, count: 4),
              let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { return nil }
        return (header, body)
    }

    private static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { CRC32C.checksum($0) }
    }

    private static func append(_ value: UInt64, bytes count: Int, to data: inout Data) {
        for index in (0..<count).reversed() {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8)))
        }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + count) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
