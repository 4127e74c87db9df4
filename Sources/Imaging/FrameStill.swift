import CVipsShim

/// A decoded video frame (packed RGB) turned into bytes the transform pipeline reads like any
/// source: an uncompressed TIFF (cheap to write and to read, lossless), whose orientation tag
/// turns it upright, so every image parameter applies to it as to a photo.
public enum FrameStill {
    /// The frame as a TIFF; `rotation`: clockwise degrees (0, 90, 180, 270) that show it upright.
    public static func tiff(rgb: [UInt8], width: Int, height: Int, rotation: Int) throws(ImagingError) -> [UInt8] {
        do {
            var image = try ImageSynthesis.image(width: width, height: height, bands: 3, pixels: rgb)
            let orientation = orientation(clockwise: rotation)
            if orientation != 1 { image = try ImageSynthesis.withOrientation(image, orientation) }
            return try ImageSynthesis.encode(image, as: .tiff)
        } catch {
            throw .undecodable("the video's frame cannot be made a still: \(error.message)")
        }
    }

    /// Frames of one video as an animated WebP source (near-lossless, quality 95: the pipeline
    /// resizes it again), each turned upright, shrunk to at most `maxSide` and shown `delay` ms.
    public static func animation(_ frames: [(rgb: [UInt8], width: Int, height: Int)], rotation: Int, maxSide: Int,
                                 delay: Int) throws(ImagingError) -> [UInt8] {
        do {
            var pages: [VipsImage] = []
            for frame in frames {
                var image = try ImageSynthesis.image(width: frame.width, height: frame.height, bands: 3, pixels: frame.rgb)
                if rotation % 360 != 0 {
                    let upright = image
                    image = try VipsImage.make { tv_rotate(upright.pointer, Int32(rotation), $0) }
                }
                let whole = image
                image = try VipsImage.make { tv_thumbnail_image(whole.pointer, Int32(maxSide), Int32(maxSide), TV_SIZE_DOWN, TV_CROP_NONE, $0) }
                // Same size as the first (a stream may change size midway): arrayjoin needs it.
                if let first = pages.first, image.width != first.width || image.height != first.height {
                    let odd = image
                    image = try VipsImage.make { tv_thumbnail_image(odd.pointer, Int32(first.width), Int32(first.height), TV_SIZE_FORCE, TV_CROP_NONE, $0) }
                }
                pages.append(try image.materialized())
            }
            return try ImageSynthesis.animation(pages, delay: delay).encode(.webp, quality: 95, strip: false)
        } catch let error as VipsCallError {
            throw .undecodable("the video's frames cannot be made a preview: \(error.message)")
        } catch {
            throw .undecodable("the video's frames cannot be made a preview: \(error)")
        }
    }

    /// The EXIF orientation that shows an image upright after a clockwise turn of `degrees`.
    static func orientation(clockwise degrees: Int) -> Int {
        switch ((degrees % 360) + 360) % 360 {
        case 90: 6
        case 180: 3
        case 270: 8
        default: 1
        }
    }

    /// Whether a frame is (nearly) black: a fade-in or a title card's dark start, which makes a
    /// poor poster. Samples a grid of about 4,000 pixels.
    public static func isBlack(rgb: [UInt8], width: Int, height: Int) -> Bool {
        guard width > 0, height > 0 else { return true }
        let step = max(1, Int((Double(width * height) / 4_000).squareRoot()))
        var total = 0, count = 0
        rgb.withUnsafeBufferPointer { p in
            var y = step / 2
            while y < height {
                var x = step / 2
                while x < width {
                    let i = (y * width + x) * 3
                    total += Int(p[i]) + Int(p[i + 1]) + Int(p[i + 2])
                    count += 1
                    x += step
                }
                y += step
            }
        }
        return count == 0 || total / (count * 3) < 16
    }
}
