/// A watermark, normalized: a library image (PNG with alpha) drawn over the output.
public struct Watermark: Sendable, Hashable {
    /// The watermark's library path.
    public var path: String
    public var position: WatermarkPosition
    /// Its width as a fraction of the output's width.
    public var scale: Double
    /// 0 (invisible) to 1 (as drawn).
    public var opacity: Double
    /// Pixels between it and the edges it sits against (dpr applied).
    public var padding: Int

    public init(path: String, position: WatermarkPosition = Self.defaultPosition, scale: Double = Self.defaultScale,
                opacity: Double = Self.defaultOpacity, padding: Int = Self.defaultPadding) {
        self.path = path
        self.position = position
        self.scale = (scale * 1000).rounded() / 1000
        self.opacity = (opacity * 1000).rounded() / 1000
        self.padding = padding
    }

    public static let defaultPosition = WatermarkPosition.se
    public static let defaultScale = 0.25
    public static let defaultOpacity = 1.0
    public static let defaultPadding = 10
}
