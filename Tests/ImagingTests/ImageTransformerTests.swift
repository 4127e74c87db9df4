import Foundation
import Imaging
import Testing

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
        #expect(Self.contains(source, "Exif") && Self.contains(source, "ICC_PROFILE") && Self.contains(source, "thumbd-secret"),
                "the input must carry EXIF, ICC and XMP for this test to mean anything")
        let out = try transform(source, TransformOptions(width: 200, format: format))
        let found = Self.metadataMarkers.filter { Self.contains(out.bytes, $0) }
        #expect(found.isEmpty, "\(format) output still contains \(found)")
        let decoded = try VipsImage.decode(out.bytes)
        #expect(decoded.width == 200 && decoded.height == 150)
    }

    static func contains(_ bytes: [UInt8], _ marker: String) -> Bool {
        let needle = Array(marker.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { i in bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle }
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
        let png = Self.pngDeclaring(width: 60000, height: 60000)
        let start = Date()
        #expect(throws: ImagingError.tooManyPixels(width: 60000, height: 60000, limit: 50_000_000)) {
            try ImageTransformer.checkedHeader(png, maxPixels: 50_000_000)
        }
        print("60000x60000 PNG header refused in \(Int(Date().timeIntervalSince(start) * 1000)) ms")
    }

    /// A PNG signature, an IHDR declaring the size, an empty IDAT and IEND.
    static func pngDeclaring(width: Int, height: Int) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
