/// Whether encoded bytes are a progressive JPEG or an interlaced PNG, read from their
/// markers: their decoders hold every coefficient or pixel of the image at once, where the
/// others stream strips. Pure; false for anything else or anything unreadable.
enum Interlace {
    static func detect(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            // IHDR is the first chunk: its interlace method is its 13th byte (offset 28).
            return bytes.count > 28 && bytes[28] != 0
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else { return false }
        // JPEG segments up to the frame header: SOF2, SOF6, SOF10 and SOF14 are progressive.
        var i = 2
        while i + 3 < bytes.count {
            guard bytes[i] == 0xFF else { return false }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill bytes
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }  // no length
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                return [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
            }
            if marker == 0xDA || marker == 0xD9 { return false }  // scan data before any frame header
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return false
    }
}
