/// `t`: when in a video its poster frame is taken, in seconds from the start (to the
/// millisecond) or as a percentage of its duration. Images ignore it.
public enum VideoTime: Sendable, Hashable, CustomStringConvertible {
    case seconds(Double)
    case percent(Double)

    public static let secondsRange: ClosedRange<Double> = 0...86_400

    /// `12.5` or `25%`: plain decimals, as every other parameter.
    public init?(_ text: String) {
        if text.hasSuffix("%") {
            guard let value = ThumbnailOptions.decimal(String(text.dropLast())), (0...100).contains(value) else { return nil }
            self = .percent((value * 100).rounded() / 100)
        } else {
            guard let value = ThumbnailOptions.decimal(text), Self.secondsRange.contains(value) else { return nil }
            self = .seconds((value * 1000).rounded() / 1000)
        }
    }

    public var description: String {
        switch self {
        case .seconds(let s): ThumbnailOptions.decimalText(s)
        case .percent(let p): ThumbnailOptions.decimalText(p) + "%"
        }
    }
}
