import Foundation
import Imaging
import Testing
import TestSupport
import ThumbdProtocol

/// Sources beyond the web formats: SVG (never reaching outside itself), PDF and multi-page
/// TIFF by page, HEIC; each checked against the pixel limit from its header first.
@Suite struct InputFormatsTests {
    func run(_ data: [UInt8], _ options: TransformOptions, maxPixels: Int = 50_000_000) throws -> VipsImage {
        let header = try ImageTransformer.checkedHeader(data, maxPixels: maxPixels)
        var resolved = options.resolved(for: ImageFormat.sniff(data))
        resolved.format = resolved.format ?? .png
        return try VipsImage.decode(ImageTransformer.transform(data, header: header, options: resolved).bytes)
    }

    static func svg(_ body: String, width: Int = 200, height: Int = 100) -> [UInt8] {
        Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(width)" height="\(height)">
        \(body)
        </svg>
        """.utf8)
    }

    @Test func anSVGRendersAtTheAskedSize() throws {
        let source = Self.svg(##"<rect x="0" y="0" width="100" height="100" fill="#ff0000"/><rect x="100" y="0" width="100" height="100" fill="#0000ff"/>"##)
        #expect(ImageFormat.sniff(source) == .svg)
        let image = try run(source, TransformOptions(width: 400))
        #expect(image.width == 400 && image.height == 200)
        let left = try image.pixel(x: 50, y: 100), right = try image.pixel(x: 350, y: 100)
        #expect(left[0] > 240 && left[2] < 15 && right[2] > 240 && right[0] < 15)
    }

    /// An SVG that points at a local file and at an HTTP server: neither is read or asked.
    @Test func anSVGLoadsNoExternalFileOrURL() throws {
        let listener = try RawListener(streamBody: false)
        let source = Self.svg("""
            <rect width="200" height="100" fill="#00ff00"/>
            <image x="0" y="0" width="100" height="100" xlink:href="file:///etc/passwd"/>
            <image x="0" y="0" width="100" height="100" href="file:///usr/share/backgrounds/mate/nature/Aqua.jpg"/>
            <image x="100" y="0" width="100" height="100" xlink:href="http://127.0.0.1:\(listener.port)/x.png"/>
            """)
        let image = try run(source, TransformOptions())
        // Green everywhere: nothing was drawn over it.
        for (x, y) in [(50, 50), (150, 50)] {
            let pixel = try image.pixel(x: x, y: y)
            #expect(pixel[0] < 15 && pixel[1] > 240 && pixel[2] < 15, "\(pixel)")
        }
        // A connection of our own comes after any the renderer would have made.
        let own = try RawHTTPClient(port: listener.port)
        #expect(eventually(timeout: 30) { listener.accepted >= 1 })
        withExtendedLifetime(own) {}
        #expect(listener.accepted == 1)
    }

    @Test func anSVGOverThePixelLimitIsRefusedFromItsHeader() {
        let huge = Self.svg(##"<rect width="10" height="10"/>"##, width: 100_000, height: 100_000)
        #expect(throws: ImagingError.tooManyPixels(width: 100_000, height: 100_000, limit: 50_000_000)) {
            try ImageTransformer.checkedHeader(huge, maxPixels: 50_000_000)
        }
    }

    /// PDF documents are recognized (an original is served as it is) but never decoded: poppler
    /// in-process runs away on some malformed documents (the fuzzer's 255-byte one grows by
    /// 300 MB a second), so no PDF byte reaches it.
    @Test func aPDFIsRefusedBeforePopplerParsesIt() throws {
        let pdf = TestDocuments.pdf(pages: [(1, 0, 0), (0, 0, 1)])
        #expect(ImageFormat.sniff(pdf) == .pdf)
        #expect(throws: ImagingError.unsupportedFormat) { try ImageHeader.read(pdf) }
        #expect(throws: ImagingError.unsupportedFormat) { try ImageTransformer.checkedHeader(pdf, maxPixels: 50_000_000) }
        #expect(throws: (any Error).self) { try ImagePreview.make(pdf, maxSide: 100) }
        // (The runaway document itself is replayed by scripts/fuzz-replay.sh, from the pdf-source
        // corpus: were it ever handed to poppler again, that replay would not end.)
    }

    @Test func aMultiPageTIFFAndAHEICAreRead() throws {
        let red = try ImageSynthesis.solid(width: 60, height: 40, color: [255, 0, 0])
        let blue = try ImageSynthesis.solid(width: 60, height: 40, color: [0, 0, 255])
        let tiff = try ImageSynthesis.encode(ImageSynthesis.animation([red, blue]), as: .tiff)
        #expect(try ImageFormat.sniff(tiff) == .tiff && ImageHeader.read(tiff).pages == 2)
        let page2 = try run(tiff, TransformOptions(width: 30, page: 2)).pixel(x: 15, y: 10)
        #expect(page2[2] > 240 && page2[0] < 15)
        let heic = try ImageSynthesis.encode(ImageSynthesis.pattern(width: 320, height: 240), as: .heic)
        #expect(ImageFormat.sniff(heic) == .heic)
        let image = try run(heic, TransformOptions(width: 160))
        #expect(image.width == 160 && image.height == 120)
    }
}
