import Foundation

/// The tool's image type: no pixels, only the size a decoder would produce, read from the
/// header (JPEG, PNG, WebP). Decoding is not what is measured, and reading a header keeps the
/// client's CPU out of the figures on a shared machine; the memory tier is still weighed in
/// decoded bytes, as an app's would be.
struct SimulatedImage: Sendable {
    let encodedBytes: Int
    let width: Int?
    let height: Int?

    /// RGBA bytes of the decoded bitmap (a guess from the encoded size when the header is not
    /// understood).
    var decodedBytes: Int {
        if let width, let height, width > 0, height > 0 { return width * height * 4 }
        return encodedBytes * 8
    }

    @Sendable static func decode(_ data: Data) throws -> SimulatedImage {
        let size = pixelSize(of: data)
        return SimulatedImage(encodedBytes: data.count, width: size?.width, height: size?.height)
    }

    static func pixelSize(of data: Data) -> (width: Int, height: Int)? {
        // Headers sit near the start, after at most an EXIF block of 64 KiB or so.
        let b = [UInt8](data.prefix(256 * 1024))
        if b.count >= 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            return (be32(b, 16), be32(b, 20))
        }
        if b.count >= 4, b.starts(with: [0xFF, 0xD8]) {
            return jpegSize(b)
        }
        if b.count >= 30, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            return webpSize(b)
        }
        return nil
    }

    /// The first start-of-frame marker's size.
    private static func jpegSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF {
                i += 1  // fill byte
                continue
            }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) {
                i += 2  // markers without a length
                continue
            }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
        }
        return nil
    }

    private static func webpSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8X":
            return (1 + le24(b, 24), 1 + le24(b, 27))
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return ((Int(b[26]) | Int(b[27]) << 8) & 0x3FFF, (Int(b[28]) | Int(b[29]) << 8) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        default:
            return nil
        }
    }

    private static func be32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }

    private static func le24(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16
    }
}
