import Foundation
import Imaging
import ImagingTestSupport
import Testing
import TestSupport
import ThumbdProtocol

/// The pipeline on real images made by libvips, decoded again by libvips.
@Suite struct ImageTransformerTests {
    func transform(_ data: [UInt8], _ options: TransformOptions, maxPixels: Int = 50_000_000) throws -> ImageTransformer.Output {
        let header = try ImageTransformer.checkedHeader(data, maxPixels: maxPixels)
        return try ImageTransformer.transform(data, header: header, options: options.resolved(for: ImageFormat.sniff(data)))
    }

    @Test func autoRotatesByExifOrientation() throws {
        // 800x400, tagged "rotate 90° clockwise to display": comes out portrait.
        let source = try ImageSynthesis.withOrientation(ImageSynthesis.pattern(width: 800, height: 400), 6)
            .encode(.jpeg, strip: false)
        #expect(try ImageHeader.read(source).orientation == 6)
        let out = try transform(source, TransformOptions(width: 300, height: 300))
        #expect(out.width == 150 && out.height == 300)
        let cover = try transform(source, TransformOptions(width: 100, height: 200, fit: .cover, crop: .top))
        #expect(cover.width == 100 && cover.height == 200)
        #expect(try ImageHeader.read(out.bytes).orientation == 1)
    }

    @Test func cmykWithoutAProfileBecomesSRGB() throws {
        // CMYK (0,0,0,0) is paper white.
        let source = try ImageSynthesis.asCMYK(ImageSynthesis.solid(width: 64, height: 64, color: [0, 0, 0, 0])).encode(.jpeg, strip: false)
        #expect(try ImageHeader.read(source).bands == 4)
        let out = try transform(source, TransformOptions(width: 32, format: .jpeg))
        let decoded = try VipsImage.decode(out.bytes)
        #expect(decoded.bands == 3)
        let pixel = try decoded.pixel(x: 16, y: 16)
        #expect(pixel.allSatisfy { $0 > 230 }, "white stays white: \(pixel)")
    }

    @Test func alphaIsFlattenedOnWhiteForJPEG() throws {
        let source = try ImageSynthesis.solid(width: 50, height: 50, color: [255, 0, 0, 0]).encode(.png)
        let out = try transform(source, TransformOptions(width: 50, format: .jpeg))
        let pixel = try VipsImage.decode(out.bytes).pixel(x: 25, y: 25)
        #expect(pixel.count == 3 && pixel.allSatisfy { $0 > 245 }, "transparent red over white is white: \(pixel)")
        let png = try transform(source, TransformOptions(width: 50, format: .png))
        #expect(try VipsImage.decode(png.bytes).bands == 4)
    }

    @Test func sixteenBitPNGBecomesEightBit() throws {
        let source = try ImageSynthesis.as16Bit(ImageSynthesis.pattern(width: 300, height: 200)).encode(.png)
        #expect(try ImageHeader.read(source).bitsPerSample == 16)
        let out = try transform(source, TransformOptions(width: 150))
        #expect(out.format == .png && out.width == 150 && out.height == 100)
        #expect(try ImageHeader.read(out.bytes).bitsPerSample == 8)
    }

    @Test func animatedGIFGivesItsFirstFrame() throws {
        let red = try ImageSynthesis.solid(width: 40, height: 30, color: [255, 0, 0])
        let blue = try ImageSynthesis.solid(width: 40, height: 30, color: [0, 0, 255])
        let gif = try ImageSynthesis.animation([red, blue, blue]).encode(.gif)
        let header = try ImageHeader.read(gif)
        #expect(header.pages == 3 && header.height == 30)
        let out = try transform(gif, TransformOptions(width: 20))
        #expect(out.format == .png && out.width == 20 && out.height == 15)
        let pixel = try VipsImage.decode(out.bytes).pixel(x: 10, y: 7)
        #expect(pixel[0] > 200 && pixel[2] < 60, "first frame is red: \(pixel)")
    }

    /// Markers of EXIF, XMP and ICC data in any of the four containers.
    static let metadataMarkers = ["Exif", "http://ns.adobe.com/xap/1.0/", "ICC_PROFILE", "iCCP", "eXIf", "ICCP", "XMP ", "prof", "thumbd-secret"]

    @Test(arguments: [OutputFormat.jpeg, .png, .webp, .avif])
    func noMetadataSurvives(_ format: OutputFormat) throws {
        let xmp = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><rdf:Description>thumbd-secret</rdf:Description></rdf:RDF></x:xmpmeta>"
        let tagged = try ImageSynthesis.withOrientation(
            ImageSynthesis.withProfileAndXMP(ImageSynthesis.pattern(width: 400, height: 300), xmp: xmp), 3)
        let source = try tagged.encode(.jpeg, strip: false)
        #expect(TestBytes.contains(source, "Exif") && TestBytes.contains(source, "ICC_PROFILE") && TestBytes.contains(source, "thumbd-secret"),
                "the input must carry EXIF, ICC and XMP for this test to mean anything")
        let out = try transform(source, TransformOptions(width: 200, format: format))
        let found = Self.metadataMarkers.filter { TestBytes.contains(out.bytes, $0) }
        #expect(found.isEmpty, "\(format) output still contains \(found)")
        let decoded = try VipsImage.decode(out.bytes)
        #expect(decoded.width == 200 && decoded.height == 150)
    }

    @Test func eachFormatHasItsSignature() throws {
        let source = try ImageSynthesis.pattern(width: 120, height: 80).encode(.png)
        #expect(ImageFormat.sniff(try transform(source, TransformOptions(width: 60, format: .jpeg)).bytes) == .jpeg)
        #expect(ImageFormat.sniff(try transform(source, TransformOptions(width: 60, format: .png)).bytes) == .png)
        #expect(ImageFormat.sniff(try transform(source, TransformOptions(width: 60, format: .webp)).bytes) == .webp)
        #expect(ImageFormat.sniff(try transform(source, TransformOptions(width: 60, format: .avif)).bytes) == .avif)
    }

    @Test func badInputIsRefusedWithTheRightError() throws {
        let jpeg = try ImageSynthesis.pattern(width: 600, height: 400).encode(.jpeg)
        let truncated = Array(jpeg.prefix(jpeg.count / 2))
        #expect(throws: ImagingError.self) { try transform(truncated, TransformOptions(width: 100)) }
        do {
            _ = try transform(truncated, TransformOptions(width: 100))
        } catch let error as ImagingError {
            guard case .undecodable = error else { Issue.record("truncated JPEG: \(error)"); return }
        }
        var noise = [UInt8](repeating: 0, count: 4096)
        for i in noise.indices { noise[i] = UInt8(truncatingIfNeeded: i &* 7919 &+ 13) }
        #expect(throws: ImagingError.unsupportedFormat) { try ImageHeader.read(noise) }
    }

    @Test func aHugeDeclaredSizeIsRefusedFromTheHeader() throws {
        let png = TestBytes.pngDeclaring(width: 60000, height: 60000)
        let start = Date()
        #expect(throws: ImagingError.tooManyPixels(width: 60000, height: 60000, limit: 50_000_000)) {
            try ImageTransformer.checkedHeader(png, maxPixels: 50_000_000)
        }
        print("60000x60000 PNG header refused in \(Int(Date().timeIntervalSince(start) * 1000)) ms")
    }
}
