/// Byte-level helpers the test targets share.
public enum TestBytes {
    /// A PNG whose IHDR declares `width` x `height`, with an empty IDAT: a decompression
    /// bomb's header without the bomb.
    public static func pngDeclaring(width: Int, height: Int) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    /// `jpeg` with its frame header (SOF0..SOF15) claiming `width` x `height`: the header of a
    /// bomb, with the real image's few bytes behind it.
    public static func jpeg(_ jpeg: [UInt8], claiming width: Int, _ height: Int) -> [UInt8] {
        var bytes = jpeg
        var i = 2
        while i + 8 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                bytes[i + 5] = UInt8(height >> 8 & 255)
                bytes[i + 6] = UInt8(height & 255)
                bytes[i + 7] = UInt8(width >> 8 & 255)
                bytes[i + 8] = UInt8(width & 255)
                return bytes
            }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return bytes
    }

    /// An uncompressed little-endian TIFF whose pages may differ in size, each one colour
    /// (r, g, b): libvips writes pages of one size only.
    public static func tiff(pages: [(width: Int, height: Int, colour: [UInt8])]) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255)] }
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
        var out: [UInt8] = Array("II".utf8) + le16(42) + le32(0)  // the first IFD's offset is patched below
        var previousNext = 4
        for page in pages {
            let pixelsAt = out.count
            for _ in 0..<(page.width * page.height) { out += page.colour }
            let bitsAt = out.count
            out += le16(8) + le16(8) + le16(8)
            if out.count % 2 == 1 { out.append(0) }
            let ifdAt = out.count
            out.replaceSubrange(previousNext..<(previousNext + 4), with: le32(ifdAt))
            // (tag, type, count, value): SHORT = 3, LONG = 4; sorted by tag.
            let entries: [(Int, Int, Int, Int)] = [
                (256, 4, 1, page.width), (257, 4, 1, page.height), (258, 3, 3, bitsAt), (259, 3, 1, 1), (262, 3, 1, 2),
                (273, 4, 1, pixelsAt), (277, 3, 1, 3), (278, 4, 1, page.height), (279, 4, 1, page.width * page.height * 3),
                (284, 3, 1, 1),
            ]
            out += le16(entries.count)
            for (tag, type, count, value) in entries {
                out += le16(tag) + le16(type) + le32(count) + (type == 3 && count == 1 ? le16(value) + le16(0) : le32(value))
            }
            previousNext = out.count
            out += le32(0)
        }
        return out
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Where `needle` first occurs in `bytes`.
    public static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { i in bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle }
    }

    /// Whether `marker`'s UTF-8 bytes occur anywhere in `bytes`.
    public static func contains(_ bytes: [UInt8], _ marker: String) -> Bool {
        let needle = Array(marker.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { i in bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle }
    }
}
