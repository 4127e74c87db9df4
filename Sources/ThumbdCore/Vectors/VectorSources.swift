import Cache
import Imaging
import ThumbdProtocol
import VectorPages

/// SVG and PDF sources as the domain reads them: through the `VectorRenderer` (processes of
/// their own), never in this process. Each thumbnail's page is drawn at the scale its output
/// needs (`VectorScale`) within the working memory it reserved, and the drawing, an
/// uncompressed TIFF, is the source the rest of the pipeline reads like any raster. Blocking:
/// worker threads call it.
package struct VectorSources: Sendable {
    package let renderer: VectorRenderer
    /// Drawings with more pixels are refused (422) before they are drawn
    /// (`limits.max_source_pixels`): the limit is the drawing's, not the page's nominal size.
    package let maxPixels: Int
    /// Pages' headers by source, version and page: a grid's sizes of one page read it once.
    private let headers = SharedLRUCache<String, ImageHeader>(capacity: 4096)

    package init(renderer: VectorRenderer, maxPixels: Int) {
        self.renderer = renderer
        self.maxPixels = maxPixels
    }

    /// A drawing for one output: its TIFF, its size and the options to transform it with.
    package struct Drawing: Sendable {
        package var tiff: [UInt8]
        package var scale: VectorScale

        /// What the drawing is as a source: its bytes, and a name for its faces (a drawing's
        /// boxes hold for its own size only).
        package func source(of loaded: LoadedSource) -> LoadedSource {
            var source = loaded
            source.bytes = tiff
            source.still = .drawing(width: scale.width, height: scale.height)
            return source
        }
    }

    /// The header of `page` (from 1): the page's nominal size, and the document's pages; read
    /// once per source version and page when they are given.
    package func header(_ document: [UInt8], page: Int, of name: SourceName? = nil, at version: SourceVersion? = nil,
                        stop: StopCheck? = nil) throws(ImagingError) -> ImageHeader {
        let key = name.flatMap { name in version.map { ThumbnailKeys.header(name, version: $0.tag, page: page) } }
        if let key, let known = headers.get(key) { return known }
        let header = try renderer.header(of: document, page: page, stop: stop)
        if let key { headers.put(key, header, cost: 1) }
        return header
    }

    /// The scale `options` need of a page with `header`, checked: `rect` within the page, the
    /// drawing within the pixel limit.
    package func scale(_ header: ImageHeader, options: TransformOptions) throws(ImagingError) -> VectorScale {
        if let region = options.region, region.x + region.width > header.width || region.y + region.height > header.height {
            throw .badParameter(name: "rect", detail: "rect \(region) is outside the \(header.width)x\(header.height) source")
        }
        let scale = VectorScale(page: header, options: options)
        if scale.pixels > maxPixels { throw .tooManyPixels(width: scale.width, height: scale.height, limit: maxPixels) }
        return scale
    }

    /// Working memory a drawing of `pixels` from a document of `documentBytes` takes in its
    /// renderer: the surface and a filter's copies of it, the document read, the libraries' own.
    package static func drawingMemory(pixels: Int, documentBytes: Int) -> Int {
        pixels * 4 * 6 + VectorRenderer.documentMemory(documentBytes) + (64 << 20)
    }

    /// The page drawn as `scale` says, its renderer's memory bounded by `drawingMemory`.
    package func draw(_ document: [UInt8], page: Int, scale: VectorScale, stop: StopCheck? = nil) throws(ImagingError) -> Drawing {
        let drawn = try renderer.draw(document, page: page, scale: scale.scale, maxPixels: maxPixels,
                                      memoryBytes: Self.drawingMemory(pixels: scale.pixels, documentBytes: document.count), stop: stop)
        // A page's size is fractional (595.28 pt): the drawing may be a pixel off the rounded
        // one, and `rect` must stay within what was drawn.
        return Drawing(tiff: drawn.tiff, scale: scale.fitted(to: drawn.width, drawn.height))
    }

    /// An SVG or PDF used as a watermark `width` pixels wide: its first page drawn at about that
    /// width (the watermark step resizes it exactly).
    package func watermark(_ document: [UInt8], width: Int, stop: StopCheck? = nil) throws(ImagingError) -> [UInt8] {
        let header = try header(document, page: 1, stop: stop)
        var options = TransformOptions()
        options.width = max(1, width)
        return try draw(document, page: 1, scale: scale(header, options: options), stop: stop).tiff
    }

    /// The facts of a document: its first page's nominal size and its pages, and a placeholder
    /// from a drawing of 100 px on its longer side.
    package func facts(_ document: [UInt8]) throws(ImagingError) -> (header: ImageHeader, preview: ImagePreview) {
        let header = try header(document, page: 1)
        var options = TransformOptions()
        options.width = 100
        options.height = 100
        let drawing = try draw(document, page: 1, scale: scale(header, options: options))
        return (header, try ImagePreview.make(drawing.tiff, maxSide: 100))
    }
}
