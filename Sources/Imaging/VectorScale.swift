import ThumbdProtocol

/// The scale an SVG or PDF page is drawn at for one output: just large enough for the resize
/// that follows (the output's size, or the size a cover is cropped from), never the page's
/// full size unless the output needs it. `rect` counts in the page's nominal pixels, so it is
/// scaled along. Pure arithmetic, decided before anything is drawn.
public struct VectorScale: Sendable, Equatable {
    /// Of the page's nominal size.
    public var scale: Double
    /// The drawing's size.
    public var width: Int
    public var height: Int
    /// The options the drawing is transformed with: `rect` in the drawing's pixels, the one
    /// page of the drawing, enlarged to the exact size where rounding fell short.
    public var options: TransformOptions

    public var pixels: Int { width * height }

    /// poppler draws no page smaller than this scale (asked smaller, it draws the whole page):
    /// a smaller drawing is made from this one by the resize after.
    public static let smallestPDFScale = 0.001

    public init(page header: ImageHeader, options asked: TransformOptions) {
        var options = asked
        options.enlarge = true
        let (pageWidth, pageHeight) = (Double(max(1, header.width)), Double(max(1, header.height)))
        // What the resize starts from: `rect`'s region, else the page (a trim only makes it smaller).
        let base = options.region.map { (Double(max(1, $0.width)), Double(max(1, $0.height))) } ?? (pageWidth, pageHeight)
        let plan = ResizePlan.make(sourceWidth: Int(base.0), sourceHeight: Int(base.1), options: options)
        let target = plan.coverSize ?? (plan.thumbnailWidth, plan.thumbnailHeight)
        var scale = max(Double(target.width) / base.0, Double(target.height) / base.1)
        if header.loader.hasPrefix("pdfload") { scale = max(scale, Self.smallestPDFScale) }
        self.scale = scale
        width = max(1, Int((pageWidth * scale).rounded()))
        height = max(1, Int((pageHeight * scale).rounded()))
        if let region = options.region {
            let x = min(width - 1, Int((Double(region.x) * scale).rounded(.down)))
            let y = min(height - 1, Int((Double(region.y) * scale).rounded(.down)))
            options.region = PixelRect(x: x, y: y, width: min(width - x, max(1, Int((Double(region.width) * scale).rounded()))),
                                       height: min(height - y, max(1, Int((Double(region.height) * scale).rounded()))))
        }
        options.page = 1
        self.options = options
    }

    /// The same scale for a drawing of `drawnWidth` x `drawnHeight` (the renderer's rounding
    /// of a fractional page size may differ by a pixel): `rect` kept within it.
    public func fitted(to drawnWidth: Int, _ drawnHeight: Int) -> VectorScale {
        var fitted = self
        fitted.width = max(1, drawnWidth)
        fitted.height = max(1, drawnHeight)
        if let region = options.region {
            let x = min(region.x, fitted.width - 1), y = min(region.y, fitted.height - 1)
            fitted.options.region = PixelRect(x: x, y: y, width: min(region.width, fitted.width - x),
                                              height: min(region.height, fitted.height - y))
        }
        return fitted
    }
}
