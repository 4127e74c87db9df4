@testable import Imaging
import Testing
import ThumbdProtocol

/// Several sizes of one source resized from one shared decode: the sizes of the plan to the
/// pixel, pixels close to those made from the bytes, and what cannot share made as alone.
@Suite struct SharedDecodeTests {
    static let photo = try! ImageSynthesis.pattern(width: 2400, height: 1600, seed: 8).encode(.jpeg)

    static func options(_ width: Int, height: Int? = nil, fit: TransformOptions.Fit = .contain) -> TransformOptions {
        TransformOptions(width: width, height: height, fit: fit, format: .png)
    }

    @Test func everySizeComesOutAsFromTheBytes() throws {
        let header = try ImageHeader.read(Self.photo)
        let asked = [Self.options(120), Self.options(300, height: 300, fit: .cover), Self.options(640, height: 200, fit: .fill),
                     Self.options(1000, height: 500, fit: .pad)]
        let shared = try #require(try SharedDecode(Self.photo, header: header, for: asked))
        // The largest scale asked is the padded one's (contained in 1000x500: 750x500 of
        // 2400x1600), so the decode is about 750 px wide, not the source's 2400.
        #expect(shared.width >= 750 && shared.width < 800)
        for options in asked { try Self.expectAsFromTheBytes(options, shared: shared, header: header) }
    }

    @Test func smallSizesAreResizedFromAHalvedLevelOfTheDecode() throws {
        let header = try ImageHeader.read(Self.photo)
        let asked = [Self.options(1200), Self.options(100), Self.options(150, height: 150, fit: .cover)]
        let shared = try #require(try SharedDecode(Self.photo, header: header, for: asked))
        #expect(shared.width >= 1200 && shared.width < 1300)
        for options in asked { try Self.expectAsFromTheBytes(options, shared: shared, header: header) }
        // 100 px wide reads an eighth-size level (about 150 px: the smallest still at least its
        // size), not the 1200-px decode; the largest size reads the decode itself.
        #expect(shared.levels.count == 4)
        let level = try shared.level(serving: 100, 67)
        #expect(level.width >= 100 && level.width < 200 && level.height >= 67)
        #expect(try shared.level(serving: 1200, 800).width == shared.width)
    }

    /// Sources and widths where a box of the width alone decodes one row short of the plan
    /// (found by trying 776 sizes with `vips thumbnail`): the decode still serves every size.
    @Test(arguments: [(777, 667, 60), (1001, 667, 97), (1999, 777, 480), (2001, 667, 161), (3001, 1333, 125), (4001, 667, 333)])
    func theDecodeIsNeverAPixelShortOfTheLargestSize(_ source: (width: Int, height: Int, asked: Int)) throws {
        let bytes = try ImageSynthesis.pattern(width: source.width, height: source.height, seed: 3).encode(.jpeg)
        let header = try ImageHeader.read(bytes)
        let asked = [Self.options(source.asked), Self.options(source.asked / 2)]
        let plan = ResizePlan.make(sourceWidth: source.width, sourceHeight: source.height, options: asked[0])
        let shared = try #require(try SharedDecode(bytes, header: header, for: asked))
        #expect(shared.width >= plan.thumbnailWidth && shared.height >= plan.thumbnailHeight, "\(shared.width)x\(shared.height)")
        for options in asked {
            let alone = try ImageTransformer.transform(bytes, header: header, options: options)
            let together = try ImageTransformer.transform(bytes, header: header, options: options, shared: shared)
            #expect(together.sharedDecode != nil && together.width == alone.width && together.height == alone.height)
        }
    }

    /// Made from the shared decode, `options` has the size made from the bytes alone and
    /// pixels close to it, and says which decode it came from.
    static func expectAsFromTheBytes(_ options: TransformOptions, shared: SharedDecode, header: ImageHeader) throws {
        let alone = try ImageTransformer.transform(photo, header: header, options: options)
        let together = try ImageTransformer.transform(photo, header: header, options: options, shared: shared)
        #expect(together.sharedDecode?.width == shared.width && alone.sharedDecode == nil)
        #expect(together.width == alone.width && together.height == alone.height, "\(options)")
        let a = try VipsImage.decode(alone.bytes), b = try VipsImage.decode(together.bytes)
        for (x, y) in [(alone.width / 2, alone.height / 2), (alone.width / 4, alone.height / 3)] {
            let difference = zip(try a.pixel(x: x, y: y), try b.pixel(x: x, y: y)).map { abs($0 - $1) }.max() ?? 0
            #expect(difference < 24, "\(options) at \(x),\(y): \(difference)")
        }
    }

    @Test func whatCannotShareIsMadeFromTheBytes() throws {
        let header = try ImageHeader.read(Self.photo)
        var region = Self.options(100)
        region.region = PixelRect(x: 0, y: 0, width: 400, height: 400)
        #expect(try SharedDecode(Self.photo, header: header, for: [region]) == nil)
        let shared = try #require(try SharedDecode(Self.photo, header: header, for: [Self.options(200), region]))
        let cut = try ImageTransformer.transform(Self.photo, header: header, options: region, shared: shared)
        #expect(cut.sharedDecode == nil && cut.width == 100 && cut.height == 100)
        // Another page than the decode's is not served by it.
        var second = Self.options(200)
        second.page = 2
        #expect(!shared.serves(second, header: header))
    }
}
