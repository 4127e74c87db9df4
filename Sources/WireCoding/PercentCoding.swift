/// Percent-encoding (RFC 3986 §2.1), decoded once and strictly: a malformed escape is an
/// error, never passed on.
public enum PercentCoding {
    /// Decodes %XX escapes; nil when an escape is malformed. `+` stays `+` (see `QueryParameters`).
    public static func decode<S: StringProtocol>(_ s: S) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let c = it.next() {
            if c == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(Hex.digit), let l = it.next().flatMap(Hex.digit) else { return nil }
                out.append(h << 4 | l)
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// Encodes every byte but the unreserved ones (and `/` when `keepingSlashes`), with
    /// upper-case hex, so the result can go into a path (or, without slashes, a query value).
    /// The server's links and the client's URLs are both made here, so they are byte-identical.
    public static func encode(_ text: String, keepingSlashes: Bool) -> String {
        let hex: StaticString = "0123456789ABCDEF"
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlashes:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
