/// Decimals for header values: no exponent, at most three fraction digits, no trailing
/// zeros (2 -> "2", 1.5 -> "1.5", 2.625 -> "2.625").
public enum DecimalText {
    public static func format(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = thousandths % 1000
        guard fraction > 0 else { return String(thousandths / 1000) }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return String(thousandths / 1000) + "." + digits
    }
}
