@testable import Imaging
import Testing
import ThumbdProtocol

@Suite struct WorkingMemoryTests {
    let photo = ImageHeader(width: 4000, height: 2667, bands: 3, orientation: 1, pages: 1, hasAlpha: false, bitsPerSample: 8,
                            loader: "jpegload_buffer")

    func estimate(_ options: TransformOptions, of header: ImageHeader? = nil) -> Int {
        WorkingMemory.estimate(header: header ?? photo, options: options)
    }

    @Test func theEncodersThatHoldMoreStateCostMore() {
        let costs = [OutputFormat.jpeg, .png, .webp, .avif, .jxl].map { estimate(TransformOptions(width: 3999, format: $0)) }
        #expect(costs == costs.sorted() && Set(costs).count == costs.count)
        // At or above what bench/working_memory.sh measured for 3999 x 2999: AVIF 302 MB, JPEG 81 MB.
        #expect((280 << 20)...(330 << 20) ~= costs[3])
        #expect((50 << 20)...(100 << 20) ~= costs[0])
    }

    @Test func itGrowsWithTheOutputNotTheSource() {
        let small = estimate(TransformOptions(width: 200, format: .avif))
        let large = estimate(TransformOptions(width: 2000, format: .avif))
        #expect(small < 10 << 20 && large > 50 << 20)
        let fromAHugeSource = estimate(TransformOptions(width: 200, format: .avif),
                                       of: ImageHeader(width: 12000, height: 8000, bands: 3, orientation: 1, pages: 1,
                                                       hasAlpha: false, bitsPerSample: 8, loader: "jpegload_buffer"))
        #expect(fromAHugeSource == small)
    }

    @Test func aCutDecodesTheWholePageFirst() {
        let plain = estimate(TransformOptions(width: 200))
        let cut = estimate(TransformOptions(width: 200, region: PixelRect(x: 0, y: 0, width: 1000, height: 1000)))
        #expect(cut - plain >= 4000 * 2667 * 3)
    }

    @Test func framesKeptCountOnce() {
        let gif = ImageHeader(width: 400, height: 300, bands: 4, orientation: 1, pages: 20, hasAlpha: true, bitsPerSample: 8,
                              loader: "gifload_buffer")
        let still = estimate(TransformOptions(width: 400, format: .webp), of: gif)
        let animated = estimate(TransformOptions(width: 400, format: .webp, animated: true), of: gif)
        // Every output frame is held; the decoder holds one frame at a time.
        #expect(animated - still == 19 * 400 * 300 * WorkingMemory.bytesPerOutputPixel(.webp))
    }

    @Test func decodersThatHoldTheWholeImageCostItsPixels() {
        var progressive = photo
        progressive.interlaced = true
        let small = TransformOptions(width: 200)
        #expect(estimate(small, of: progressive) - estimate(small) == 4000 * 2667 * 7)
        var avif = photo
        avif.loader = "heifload_buffer"
        #expect(estimate(small, of: avif) - estimate(small) >= 4000 * 2667 * 11)
    }

    @Test func paddingRotationAndVectorsCountTheirPixels() {
        let plain = estimate(TransformOptions(width: 2000, format: .webp))
        let padded = estimate(TransformOptions(width: 2000, format: .webp, padding: EdgeInsets(all: 500)))
        #expect(padded - plain == (3000 * 2334 - 2000 * 1334) * WorkingMemory.bytesPerOutputPixel(.webp))
        #expect(estimate(TransformOptions(width: 2000, rotation: 90)) > estimate(TransformOptions(width: 2000)) + 2000 * 1334 * 4 - 1)
        // A vector page is drawn at the size asked, whatever its nominal size.
        let svg = ImageHeader(width: 100, height: 100, bands: 4, orientation: 1, pages: 1, hasAlpha: true, bitsPerSample: 8,
                              loader: "svgload_buffer")
        #expect(estimate(TransformOptions(width: 4000, format: .png), of: svg) >= 4000 * 4000 * 14)
    }

    @Test func theSourceAndWatermarkBytesAreHeldToo() {
        let options = TransformOptions(width: 200, watermark: Watermark(path: "mark.png"))
        let mark = ImageHeader(width: 1000, height: 500, bands: 4, orientation: 1, pages: 1, hasAlpha: true, bitsPerSample: 8,
                               loader: "pngload_buffer")
        let bare = WorkingMemory.estimate(header: photo, options: options)
        let full = WorkingMemory.estimate(header: photo, options: options, sourceBytes: 1_000_000, watermark: mark,
                                          watermarkBytes: 50_000)
        #expect(full - bare >= 1_050_000 + 50 * 25 * 4)
    }
}
