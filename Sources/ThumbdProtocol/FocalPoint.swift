/// `fp`: the point of the source a `fit=cover` crop keeps as centred as the box allows, as
/// fractions of its width and height (0,0 is the top left).
public struct FocalPoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    /// Rounded to thousandths, so that nearly equal points are one cache entry.
    public init(x: Double, y: Double) {
        self.x = (x * 1000).rounded() / 1000
        self.y = (y * 1000).rounded() / 1000
    }

    /// The middle: the same crop as `crop=center`.
    public static let centre = FocalPoint(x: 0.5, y: 0.5)

    public var description: String { ThumbnailOptions.decimalText(x) + "," + ThumbnailOptions.decimalText(y) }
}
