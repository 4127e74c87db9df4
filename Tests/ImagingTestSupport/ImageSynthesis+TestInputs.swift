import CVipsShim
import Imaging

/// Inputs only tests need: sources in forms a camera or an editor makes and thumbd must read.
extension ImageSynthesis {
    /// Reinterprets a 4-band image as CMYK (no ICC profile attached).
    public static func asCMYK(_ image: VipsImage) throws(VipsCallError) -> VipsImage {
        try VipsImage.make { tv_as_cmyk(image.pointer, $0) }
    }

    /// Widens every sample to 16 bits.
    public static func as16Bit(_ image: VipsImage) throws(VipsCallError) -> VipsImage {
        try VipsImage.make { tv_as_16bit(image.pointer, $0) }
    }
}

extension VipsImage {
    /// Page `index` (from 0) of an animation or a multi-page image, at its own size, as a PNG.
    public static func pagePNG(_ bytes: [UInt8], page index: Int) throws -> [UInt8] {
        let header = try ImageHeader.read(bytes)
        let width = Int32(header.width), height = Int32(header.height)
        return try bytes.withUnsafeBytes { raw in
            // Encoded while the bytes are certainly alive: libvips reads them lazily.
            try VipsImage.make { tv_thumbnail_page(raw.baseAddress, raw.count, width, height, TV_SIZE_DOWN, TV_CROP_NONE, Int32(index), $0) }
                .encode(.png)
        }
    }
}
