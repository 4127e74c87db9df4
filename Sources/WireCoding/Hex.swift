/// Lower-case hexadecimal text of bytes (signatures, file names from digests).
public enum Hex {
    public static func lowercase<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits: StaticString = "0123456789abcdef"
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits.utf8Start[Int(byte >> 4)])
            out.append(digits.utf8Start[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
