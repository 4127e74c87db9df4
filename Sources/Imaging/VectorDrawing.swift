import CVipsShim

/// SVG and PDF pages drawn by libvips (librsvg, poppler): only ever in a renderer process
/// (`VectorPages`), after `allowInThisProcess()`. Everywhere else those loaders are refused
/// before they parse a byte, because a document can make them run away in one call that no
/// stop check reaches.
public enum VectorDrawing {
    /// Lets this process read SVG and PDF: a renderer calls it once, at start.
    public static func allowInThisProcess() {
        Vips.start()
        tv_allow_vectors()
    }

    /// Page `page` (from 1) drawn at `scale` of its nominal size: an uncompressed sRGB TIFF
    /// (alpha kept) the pipeline reads as any raster source. Refused (`tooManyPixels`) when the
    /// drawing would pass `maxPixels`, before it is drawn.
    public static func draw(_ document: [UInt8], page: Int, scale: Double, maxPixels: Int) throws(ImagingError)
        -> (tiff: [UInt8], width: Int, height: Int) {
        var out: UnsafeMutableRawPointer?
        var length = 0
        var width: Int32 = 0, height: Int32 = 0
        var err: UnsafeMutablePointer<CChar>?
        let rc = document.withUnsafeBytes { raw in
            tv_draw_vector(raw.baseAddress, raw.count, Int32(max(0, page - 1)), scale, UInt64(max(0, maxPixels)), &out, &length,
                           &width, &height, &err)
        }
        switch rc {
        case 0:
            guard let out else { throw .undecodable("the page drew nothing") }
            defer { tv_free(out) }
            return (Array(UnsafeRawBufferPointer(start: out, count: length)), Int(width), Int(height))
        case -2:
            tv_free(err)
            throw .unsupportedFormat
        case -3:
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: maxPixels)
        default:
            throw .undecodable(takeMessage(err))
        }
    }
}
