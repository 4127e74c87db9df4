/// Decimals for header values and query parameters: no exponent, no sign, at most
/// `fractionDigits` fraction digits (rounded), no trailing zeros (2 -> "2", 1.5 -> "1.5",
/// 2.625 -> "2.625"). Non-negative values only.
public enum DecimalText {
    public static func format(_ value: Double, fractionDigits: Int = 3) -> String {
        var scale = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = Int((value * Double(scale)).rounded())
        let fraction = scaled % scale
        guard fraction > 0 else { return String(scaled / scale) }
        var digits = String(fraction)
        while digits.count < fractionDigits { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return String(scaled / scale) + "." + digits
    }

    /// `value` (clamped at 0) in decimal digits, appended to `out` without making a String:
    /// response heads and log lines are composed as bytes.
    public static func append(_ value: Int64, to out: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = UInt64(max(0, value)), n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[19 - n] = UInt8(48 + v % 10)
                v /= 10
                n += 1
            } while v > 0
            out.append(contentsOf: d[(20 - n)...])
        }
    }
}
