/// A 128-bit FNV-1a hash as 32 hex digits: the same for the same text on every machine and
/// in every run (unlike `Hasher`), for ETags, cache keys and file names. Not cryptographic.
public enum StableHash {
    public static func hex128(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = b ^ (a >> 29)
        }
        return hex(a) + hex(b)
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
