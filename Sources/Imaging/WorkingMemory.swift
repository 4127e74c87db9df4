import ThumbdProtocol

/// What a transform holds in memory at its peak, estimated from the header and the options
/// alone, before a pixel is decoded, so that a server can bound how many large transforms run
/// at once and refuse one that cannot fit. Every term was measured (bench/working_memory.sh:
/// libvips 8.14, one case at a time on a fresh process, peak RSS growth) and is set at or
/// above what was measured:
///
/// - the encoded source (and watermark) bytes held while it runs, and 8 MiB of decoder and
///   pipeline buffers whatever the size;
/// - the decoder's own: nothing more for decoders that stream strips (baseline JPEG,
///   non-interlaced PNG); the whole image for those that cannot (progressive JPEG about 4
///   bytes a pixel, interlaced PNG its samples, AVIF and HEIC up to 11, GIF 5-6, TIFF a strip
///   that may be the whole image), WebP and SVG at the scale they are decoded or drawn at;
/// - the output, materialized once, and the encoder's state, per output pixel and frame: JPEG
///   about 6 bytes, PNG 8, WebP 12, AVIF 24, JPEG XL 46-47 (effort does not change it);
/// - a cut (`rect`, `trim`) or a redaction decodes the whole page first; a rotation materializes the
///   resized image before turning it; a watermark decodes its image at its drawn size.
public enum WorkingMemory {
    /// Bytes a transform of a source with `header` into `options` needs at its peak.
    /// `watermark`: the header of the watermark image drawn on it, if any.
    public static func estimate(header: ImageHeader, options: TransformOptions, sourceBytes: Int = 0,
                                watermark: ImageHeader? = nil, watermarkBytes: Int = 0) -> Int {
        let geometry = OutputGeometry(header: header, options: options)
        let format = options.format ?? .universal(hasAlpha: header.hasAlpha)
        let frames = geometry.frames
        var bytes = fixedBytes + sourceBytes + watermarkBytes
        // Animations are decoded a frame at a time.
        bytes += decoderBytes(header, decodedPixels: decodedPixels(header, geometry))
        bytes += geometry.pixels * bytesPerOutputPixel(format)
        if options.region != nil || options.trim != nil || options.redact != nil { bytes += header.width * header.height * 4 * frames }
        if options.rotation != 0 { bytes += geometry.resizedWidth * geometry.resizedHeight * 4 * frames }
        if let watermark, options.watermark != nil {
            let scale = options.watermark.map { $0.scale } ?? 1
            let markWidth = max(1, Int(Double(geometry.width) * scale))
            let markHeight = max(1, markWidth * watermark.height / max(1, watermark.width))
            let markPixels = markWidth * markHeight
            bytes += markPixels * 4 * 2 + decoderBytes(watermark, decodedPixels: markPixels)
        }
        return bytes
    }

    /// Decoder and pipeline buffers, whatever the size.
    static let fixedBytes = 8 << 20

    /// Pixels of one page as the decoder produces them: WebP and vector pages are decoded or
    /// drawn at the scale of the resize (the cover size for a crop); the others whole.
    static func decodedPixels(_ header: ImageHeader, _ geometry: OutputGeometry) -> Int {
        let scale = max(Double(geometry.resizedWidth) / Double(max(1, geometry.cutWidth)),
                        Double(geometry.resizedHeight) / Double(max(1, geometry.cutHeight)))
        let (width, height) = header.orientedSize
        return Int((Double(width) * scale).rounded(.up) * (Double(height) * scale).rounded(.up))
    }

    /// What the loader holds besides the strips every decoder streams through.
    static func decoderBytes(_ header: ImageHeader, decodedPixels: Int) -> Int {
        let pixels = header.width * header.height
        let samples = max(1, header.bands) * max(1, header.bitsPerSample / 8)
        let loader = header.loader
        if loader.hasPrefix("jpegload") { return header.interlaced ? pixels * 7 : 0 }
        if loader.hasPrefix("pngload") { return header.interlaced ? pixels * samples * 5 / 4 : pixels * 3 / 2 }
        if loader.hasPrefix("webpload") { return decodedPixels * 6 }
        if loader.hasPrefix("heifload") { return pixels * 12 }
        if loader.hasPrefix("gifload") { return pixels * 6 }
        if loader.hasPrefix("tiffload") { return pixels * samples }
        if loader.hasPrefix("svgload") { return decodedPixels * 4 }
        // Any other decoder: as if it held the whole image, generously.
        return pixels * 12
    }

    public static func bytesPerOutputPixel(_ format: OutputFormat) -> Int {
        switch format {
        case .jpeg: 7
        case .png, .gif: 10
        case .webp: 14
        case .avif: 28
        case .jxl: 52
        }
    }
}
