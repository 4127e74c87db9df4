import CVipsShim

/// Makes images from computed pixels: the demo library and test inputs.
public enum ImageSynthesis {
    /// An image from RGB(A) bytes, row by row.
    public static func image(width: Int, height: Int, bands: Int, pixels: [UInt8]) throws(VipsCallError) -> VipsImage {
        Vips.start()
        precondition(pixels.count == width * height * bands)
        return try pixels.withUnsafeBufferPointer { buf in
            VipsImage.attempt { tv_from_pixels(buf.baseAddress, Int32(width), Int32(height), Int32(bands), $0) }
        }.get()
    }

    /// A smooth, colourful pattern (bands 3 or 4); `seed` varies the palette.
    public static func pattern(width: Int, height: Int, bands: Int = 3, seed: Int = 0) throws(VipsCallError) -> VipsImage {
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        let phase = Double(seed) * 0.7
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                let fy = Double(y) / Double(max(1, height - 1))
                for x in 0..<width {
                    let fx = Double(x) / Double(max(1, width - 1))
                    let i = (y * width + x) * bands
                    let wave = 0.5 + 0.5 * Double(sinApprox((fx * 6 + fy * 3 + phase)))
                    p[i] = UInt8(max(0, min(255, 255 * fx)))
                    p[i + 1] = UInt8(max(0, min(255, 255 * wave)))
                    p[i + 2] = UInt8(max(0, min(255, 255 * (1 - fy))))
                    if bands == 4 {
                        // A transparent band across the middle.
                        p[i + 3] = (fy > 0.4 && fy < 0.6) ? 0 : 255
                    }
                }
            }
        }
        return try image(width: width, height: height, bands: bands, pixels: pixels)
    }

    /// A solid colour.
    public static func solid(width: Int, height: Int, color: [UInt8]) throws(VipsCallError) -> VipsImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * color.count)
        for _ in 0..<(width * height) { pixels += color }
        return try image(width: width, height: height, bands: color.count, pixels: pixels)
    }

    public static func withOrientation(_ image: VipsImage, _ orientation: Int) throws(VipsCallError) -> VipsImage {
        try VipsImage.make { tv_with_orientation(image.pointer, Int32(orientation), $0) }
    }

    /// With an embedded sRGB ICC profile and an XMP packet: metadata a thumbnail must drop.
    public static func withProfileAndXMP(_ image: VipsImage, xmp: String) throws(VipsCallError) -> VipsImage {
        try VipsImage.make { tv_with_profile_and_xmp(image.pointer, xmp, $0) }
    }

    /// Formats sources come in that thumbd does not write: for tests and the demo library.
    public enum SourceFormat { case heic, tiff }

    /// `image` encoded as a HEIC or TIFF (an animation's pages as pages of the TIFF).
    public static func encode(_ image: VipsImage, as format: SourceFormat) throws(VipsCallError) -> [UInt8] {
        var out: UnsafeMutableRawPointer?
        var length = 0
        var err: UnsafeMutablePointer<CChar>?
        guard tv_save(image.pointer, format == .heic ? TV_HEIC : TV_TIFF, 80, 0, 0, 0, &out, &length, &err) == 0, let out else {
            throw VipsCallError(message: takeMessage(err))
        }
        defer { tv_free(out) }
        return Array(UnsafeRawBufferPointer(start: out, count: length))
    }

    /// An animation: the frames as pages, `delay` ms each.
    public static func animation(_ frames: [VipsImage], delay: Int = 100) throws(VipsCallError) -> VipsImage {
        var pointers: [OpaquePointer?] = frames.map { $0.pointer }
        let result = pointers.withUnsafeMutableBufferPointer { buf in
            VipsImage.attempt { tv_join_pages(buf.baseAddress, Int32(frames.count), Int32(delay), $0) }
        }
        withExtendedLifetime(frames) {}
        return try result.get()
    }

    private static func sinApprox(_ x: Double) -> Double {
        // Bhaskara-free, good enough for a palette: a triangle wave smoothed.
        let t = x.truncatingRemainder(dividingBy: 2 * .pi) / (2 * .pi)
        let tri = 4 * abs(t - (t < 0 ? -0.5 : 0.5)) - 1
        return tri * (1.5 - 0.5 * tri * tri)
    }
}
