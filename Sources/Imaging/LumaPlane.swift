import CVipsShim

/// An image's luma, 8 bits per pixel, row-major: what `PerceptualDistance` compares.
public struct LumaPlane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "luma plane of the wrong size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The first `rows` rows (the first frame of an animation's strip).
    public func prefix(rows: Int) -> LumaPlane {
        rows >= height ? self : LumaPlane(width: width, height: rows, pixels: Array(pixels[0..<(width * rows)]))
    }
}

extension LumaPlane {
    /// How far `encoded`, an encoding of these pixels, looks from them (`PerceptualDistance`).
    /// An animation decodes to its first frame, so it is measured against the first frame.
    public func distance(to encoded: [UInt8]) throws(VipsCallError) -> Double {
        let decoded = try VipsImage.decode(encoded).luma()
        return PerceptualDistance.distance(prefix(rows: decoded.height), decoded)
    }
}

extension VipsImage {
    /// Its luma: Rec. 601 weights on 8-bit sRGB (a grey image's own band); alpha ignored.
    public func luma() throws(VipsCallError) -> LumaPlane {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var err: UnsafeMutablePointer<CChar>?
        guard tv_luma(pointer, &pixels, &width, &height, &err) == 0, let pixels else {
            throw VipsCallError(message: takeMessage(err))
        }
        defer { tv_free(pixels) }
        let count = Int(width) * Int(height)
        return LumaPlane(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }
}
