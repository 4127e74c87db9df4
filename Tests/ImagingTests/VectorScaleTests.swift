import Imaging
import Testing
import ThumbdProtocol

@Suite struct VectorScaleTests {
    static let page = ImageHeader(width: 1000, height: 500, bands: 4, orientation: 1, pages: 1, hasAlpha: true, bitsPerSample: 8,
                                  loader: "svgload_buffer")
    static let pdf = ImageHeader(width: 200_000, height: 200_000, bands: 4, orientation: 1, pages: 1, hasAlpha: true, bitsPerSample: 8,
                                 loader: "pdfload_buffer")

    @Test func aPageIsDrawnAtTheSizeItsOutputNeeds() {
        let contain = VectorScale(page: Self.page, options: TransformOptions(width: 300))
        #expect(contain.scale == 0.3 && contain.width == 300 && contain.height == 150)
        // A cover is drawn to cover its box, then cut.
        let cover = VectorScale(page: Self.page, options: TransformOptions(width: 300, height: 300, fit: .cover))
        #expect(cover.width == 600 && cover.height == 300)
        // Larger than the page: a vector source is never too small.
        let larger = VectorScale(page: Self.page, options: TransformOptions(width: 2000))
        #expect(larger.width == 2000 && larger.options.enlarge)
        // Without a size, the page's own.
        #expect(VectorScale(page: Self.page, options: TransformOptions()).scale == 1)
    }

    @Test func rectCountsInThePagesPixelsAndIsScaledAlong() {
        let scale = VectorScale(page: Self.page, options: TransformOptions(width: 100, region: PixelRect(x: 500, y: 0, width: 500, height: 500)))
        #expect(scale.scale == 0.2 && scale.width == 200 && scale.height == 100)
        #expect(scale.options.region == PixelRect(x: 100, y: 0, width: 100, height: 100) && scale.options.page == 1)
        // A drawing a pixel smaller than the rounding said keeps rect within it.
        let fitted = scale.fitted(to: 199, 99)
        #expect(fitted.options.region == PixelRect(x: 100, y: 0, width: 99, height: 99))
    }

    @Test func aPDFPageIsNeverDrawnBelowPopplersSmallestScale() {
        let small = VectorScale(page: Self.pdf, options: TransformOptions(width: 100))
        #expect(small.scale == VectorScale.smallestPDFScale && small.width == 200)
        let asked = VectorScale(page: Self.pdf, options: TransformOptions(width: 300))
        #expect(asked.width == 300 && asked.height == 300)
    }
}
