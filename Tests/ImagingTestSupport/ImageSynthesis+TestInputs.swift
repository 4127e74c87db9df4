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
