import CVipsShim

/// A small RGBA8 rendering of an encoded image (auto-rotated, first frame, alpha kept),
/// for placeholders and average colours.
public struct ImagePreview: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row by row, 4 bytes a pixel.
    public let rgba: [UInt8]

    /// The preview fitting `maxSide` x `maxSide` (never enlarged). Decodes: a worker thread calls it.
    public static func make(_ data: [UInt8], maxSide: Int = 100) throws(ImagingError) -> ImagePreview {
        Vips.start()
        var width: Int32 = 0, height: Int32 = 0
        var pixels: UnsafeMutableRawPointer?
        var length = 0
        var err: UnsafeMutablePointer<CChar>?
        let rc = data.withUnsafeBytes { tv_rgba_preview($0.baseAddress, $0.count, Int32(maxSide), &width, &height, &pixels, &length, &err) }
        guard rc == 0, let pixels else { throw .undecodable(takeMessage(err)) }
        defer { tv_free(pixels) }
        return ImagePreview(width: Int(width), height: Int(height), rgba: Array(UnsafeRawBufferPointer(start: pixels, count: length)))
    }

    /// The average colour, each pixel weighted by its alpha (a transparent pixel has none),
    /// as `#rrggbb`; white when the image is wholly transparent.
    public var averageColor: String {
        var r = 0.0, g = 0.0, b = 0.0, weight = 0.0
        var i = 0
        while i + 3 < rgba.count {
            let a = Double(rgba[i + 3]) / 255
            r += Double(rgba[i]) * a
            g += Double(rgba[i + 1]) * a
            b += Double(rgba[i + 2]) * a
            weight += a
            i += 4
        }
        guard weight > 0 else { return "#ffffff" }
        func hex(_ v: Double) -> String {
            let n = min(255, max(0, Int((v / weight).rounded())))
            return (n < 16 ? "0" : "") + String(n, radix: 16)
        }
        return "#" + hex(r) + hex(g) + hex(b)
    }

}
