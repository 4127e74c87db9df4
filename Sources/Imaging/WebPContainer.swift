/// WebP's RIFF container, just enough to drop metadata chunks: libvips 8.14's webpsave
/// writes an EXIF chunk even when asked to strip, so thumbd removes EXIF, XMP and ICCP
/// chunks itself and clears their flags in VP8X. Pure; malformed input comes back unchanged.
public enum WebPContainer {
    static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]

    public static func removingMetadata(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 12, fourCC(bytes, 0) == "RIFF", fourCC(bytes, 8) == "WEBP" else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)  // never larger: no growth, no slack kept with the cached variant
        out += bytes[0..<12]
        var pos = 12
        while pos + 8 <= bytes.count {
            let name = fourCC(bytes, pos)
            let size = Int(bytes[pos + 4]) | Int(bytes[pos + 5]) << 8 | Int(bytes[pos + 6]) << 16 | Int(bytes[pos + 7]) << 24
            let end = pos + 8 + size + (size & 1)
            guard end <= bytes.count || (end == bytes.count + 1 && size & 1 == 1) else { return bytes }
            let chunkEnd = min(end, bytes.count)
            if !metadataChunks.contains(name) {
                let start = out.count
                out += bytes[pos..<chunkEnd]
                if name == "VP8X", chunkEnd - pos > 8 {
                    // Flags byte: ICC 0x20, EXIF 0x08, XMP 0x04.
                    out[start + 8] &= ~UInt8(0x20 | 0x08 | 0x04)
                }
            }
            pos = end
        }
        let riffSize = out.count - 8
        out[4] = UInt8(riffSize & 0xFF)
        out[5] = UInt8(riffSize >> 8 & 0xFF)
        out[6] = UInt8(riffSize >> 16 & 0xFF)
        out[7] = UInt8(riffSize >> 24 & 0xFF)
        return out
    }

    static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
        String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
    }
}
