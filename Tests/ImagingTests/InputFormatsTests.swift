import Foundation
import Imaging
import Testing
import TestSupport
import ThumbdProtocol

/// Sources beyond the web formats: multi-page TIFF by page, HEIC, each checked against the
/// pixel limit from its header first; SVG and PDF refused in this process.
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

    /// SVG and PDF are recognized (an original is served as it is) but never read in this
    /// process: librsvg and poppler run away on some documents (a blur that draws for seconds in
    /// one call, a 255-byte PDF whose parse grows by 300 MB a second), so their bytes reach
    /// them only in a renderer process (`VectorPages`; its tests draw them).
    @Test(arguments: ["svg", "pdf"])
    func aVectorDocumentIsRefusedBeforeItsLoaderParsesIt(_ kind: String) throws {
        let document = kind == "pdf" ? TestDocuments.pdf(pages: [(1, 0, 0), (0, 0, 1)]) : Self.svg(##"<rect width="10" height="10"/>"##)
        #expect(ImageFormat.sniff(document)?.isVector == true)
        #expect(throws: ImagingError.unsupportedFormat) { try ImageHeader.read(document) }
        #expect(throws: ImagingError.unsupportedFormat) { try ImageTransformer.checkedHeader(document, maxPixels: 50_000_000) }
        #expect(throws: (any Error).self) { try ImagePreview.make(document, maxSide: 100) }
        #expect(throws: (any Error).self) { try VipsImage.decode(document) }
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
