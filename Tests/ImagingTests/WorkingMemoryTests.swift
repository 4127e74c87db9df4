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
        // Near what was measured for these outputs: AVIF about 266 MB, JPEG about 71 MB.
        #expect((230 << 20)...(330 << 20) ~= costs[3])
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
        #expect(animated - WorkingMemory.fixedBytes == 20 * (still - WorkingMemory.fixedBytes))
    }
}
