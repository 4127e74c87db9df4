import ThumbdProtocol

/// What a transform holds in memory at its peak, estimated from the header and the options
/// alone, before a pixel is decoded, so that a server can bound how many large transforms run
/// at once. The encoders dominate: the output is materialized once, then AVIF and JPEG XL
/// keep several frames of encoder state per pixel. Measured here (libvips 8.14, a 4000 px
/// JPEG, peak RSS above the idle server): 3999 px wide JPEG +71 MB, PNG +93 MB, WebP +114 MB,
/// AVIF +266 MB, JPEG XL +491 MB; 2000 px AVIF +81 MB.
public enum WorkingMemory {
    /// Bytes a transform of a source with `header` into `options` needs at its peak.
    public static func estimate(header: ImageHeader, options: TransformOptions) -> Int {
        let (width, height) = header.orientedSize
        let plan = ResizePlan.make(sourceWidth: width, sourceHeight: height, options: options)
        let frames = options.keepsFrames ? max(1, header.pages) : 1
        let format = options.format ?? .universal(hasAlpha: header.hasAlpha)
        var bytes = fixedBytes + plan.outputWidth * plan.outputHeight * frames * bytesPerOutputPixel(format)
        // A cut (`rect`, `trim`) decodes the whole page first, not a shrunk one.
        if options.region != nil || options.trim != nil { bytes += width * height * 4 * frames }
        return bytes
    }

    /// Decoder and pipeline buffers, whatever the size.
    static let fixedBytes = 8 << 20

    static func bytesPerOutputPixel(_ format: OutputFormat) -> Int {
        switch format {
        case .jpeg: 7
        case .png, .gif: 9
        case .webp: 11
        case .avif: 25
        case .jxl: 46
        }
    }
}
