import WireCoding

/// A colour as `bg` spells it: `rrggbb` or `rrggbbaa` in hexadecimal, either case.
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = RGBAColor(red: 255, green: 255, blue: 255)

    /// `ff8000`, `FF800080`; nil for anything else.
    public init?(hex text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 6 || digits.count == 8 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Hex.digit(digits[i]), let low = Hex.digit(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 255)
    }

    /// Lower-case, the alpha only when not opaque: one spelling per colour.
    public var description: String {
        Hex.lowercase(alpha == 255 ? [red, green, blue] : [red, green, blue, alpha])
    }


}
