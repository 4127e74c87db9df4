import CVipsShim
import ThumbdProtocol

/// One decode of a source for several of its thumbnails at once: a grid asks one photo at 1x,
/// 2x and a detail size together, and each would otherwise decode it again. The source is
/// decoded once, oriented, at the smallest scale every size can be resized down from (JPEG and
/// WebP shrink-on-load), held in memory, and each thumbnail is resized from it. Only plain
/// resizes of one still raster page share (no `rect`, `trim`, kept frames or vector source).
/// A size much smaller than the decode is resized from a halved copy of it instead (each
/// level half the one above, made once when first needed; a size reads the smallest level
/// still at least its size each way): resizing cost follows the pixels read, so small sizes do
/// not each read the large decode again. Levels are halved with the same Lanczos resampling
/// as the final step (not a block shrink like JPEG's shrink-on-load, which is why libvips
/// leaves that a factor of two), so the last step may be anything from 1x to 2x.
/// Resizing from the shared decode is another resampling path than from the bytes: callers
/// give its outputs their own ETags (`Output.sharedDecode`: the decode's size, which fixes
/// every level). Use it on one thread.
public final class SharedDecode: @unchecked Sendable {
    let image: VipsImage
    let page: Int
    /// `image`, then each half the size of the one before, made when first needed.
    private(set) var levels: [VipsImage]
    public var width: Int { image.width }
    public var height: Int { image.height }

    /// The decode serving every one of `options` (at least one), or nil when none can share one.
    /// `stop` as for `ImageTransformer.transform`.
    public init?(_ data: [UInt8], header: ImageHeader, for options: [TransformOptions], stop: StopCheck? = nil) throws(ImagingError) {
        let sharing = options.filter { Self.canShare($0, header: header) }
        guard let first = sharing.first, sharing.allSatisfy({ $0.page == first.page }) else { return nil }
        let (sourceWidth, sourceHeight) = header.orientedSize
        let w = Double(sourceWidth), h = Double(sourceHeight)
        let plans = sharing.map { ResizePlan.make(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: $0) }
        // The largest scale any of them resizes the source by, at most 1 (enlarging resizes up from the full size).
        let scale = min(1, plans.map { max(Double($0.thumbnailWidth) / w, Double($0.thumbnailHeight) / h) }.max()!)
        let page = Int32(first.page - 1)
        // Exactly the largest size where it keeps the aspect ratio, so that one is not resized twice
        // (the tolerance keeps 1922.0000000000002 at 1922).
        let boxWidth = Int32(min(w, (w * scale - 1e-6).rounded(.up))), boxHeight = Int32(min(h, (h * scale - 1e-6).rounded(.up)))
        let decoded: VipsImage
        do {
            let loaded = try data.withUnsafeBytes { raw in
                VipsImage.attempt { tv_thumbnail_page(raw.baseAddress, raw.count, boxWidth, boxHeight, TV_SIZE_DOWN, TV_CROP_NONE, page, $0) }
            }.get()
            // Decoded into memory once: every size reads it again.
            decoded = try loaded.materialized(stop: stop)
        } catch let error as ImagingError {
            throw error
        } catch {
            throw .undecodable((error as? VipsCallError)?.message ?? "\(error)")
        }
        // libvips fixes one side of the box and rounds the other from the shrink-on-load size: a
        // box of the width alone falls a pixel short now and then (32 of 776 sizes tried), one
        // from the scale of the plans' rounded sides did not (0 of 776). Were it short, every size
        // is made alone: none is enlarged.
        guard plans.allSatisfy({ decoded.width >= min($0.thumbnailWidth, sourceWidth) && decoded.height >= min($0.thumbnailHeight, sourceHeight) })
        else { return nil }
        image = decoded
        self.page = first.page
        levels = [image]
    }

    /// Bytes a shared decode for `options` holds (the decode and its halved levels, a third
    /// more), or nil when none of them can share one.
    public static func estimate(header: ImageHeader, for options: [TransformOptions]) -> Int? {
        let sharing = options.filter { canShare($0, header: header) }
        guard sharing.count > 1 else { return nil }
        let (sourceWidth, sourceHeight) = header.orientedSize
        let plans = sharing.map { ResizePlan.make(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: $0) }
        let scale = min(1, plans.map { max(Double($0.thumbnailWidth) / Double(sourceWidth), Double($0.thumbnailHeight) / Double(sourceHeight)) }.max()!)
        let pixels = Int((Double(sourceWidth) * scale).rounded(.up)) * Int((Double(sourceHeight) * scale).rounded(.up))
        return pixels * max(3, header.bands) * max(1, header.bitsPerSample / 8) * 4 / 3
    }

    /// The smallest level still at least `width` x `height`: the decode itself when none is.
    func level(serving width: Int, _ height: Int) throws -> VipsImage {
        var index = 0
        while true {
            let current = levels[index]
            let halfWidth = current.width / 2, halfHeight = current.height / 2
            guard halfWidth >= width, halfHeight >= height else { return current }
            if index + 1 == levels.count {
                let half = try VipsImage.make {
                    tv_thumbnail_image(current.pointer, Int32(halfWidth), Int32(halfHeight), TV_SIZE_FORCE, TV_CROP_NONE, $0)
                }
                levels.append(try half.materialized())
            }
            index += 1
        }
    }

    /// Whether `options` can be made from a shared decode of its source at all.
    public static func canShare(_ options: TransformOptions, header: ImageHeader) -> Bool {
        // Faces are placed in the source's pixels: those options are made alone.
        options.region == nil && options.trim == nil && options.redact == nil && options.crop != .face && !(options.keepsFrames && header.pages > 1) && !header.isVector
    }

    /// Whether this decode serves `options`: it can share one, of the same page.
    func serves(_ options: TransformOptions, header: ImageHeader) -> Bool {
        Self.canShare(options, header: header) && options.page == page
    }

    /// `options`' thumbnail resized from this decode, placed as from the bytes; nil when its size
    /// is not the plan's to the pixel (then it is made from the bytes, as alone).
    func resized(for options: TransformOptions, header: ImageHeader) throws -> VipsImage? {
        let (sourceWidth, sourceHeight) = header.orientedSize
        let plan = ResizePlan.make(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: options)
        let base = try level(serving: plan.thumbnailWidth, plan.thumbnailHeight)
        if plan.interest == .none, base.width == plan.thumbnailWidth, base.height == plan.thumbnailHeight {
            return try ImageTransformer.placed(base, plan: plan, options: options)
        }
        let resized = try VipsImage.make {
            tv_thumbnail_image(base.pointer, Int32(plan.thumbnailWidth), Int32(plan.thumbnailHeight),
                               plan.interest == .none ? TV_SIZE_FORCE : TV_SIZE_BOTH, plan.interest.shimCrop, $0)
        }
        guard resized.width == plan.thumbnailWidth, resized.height == plan.thumbnailHeight else { return nil }
        return try ImageTransformer.placed(resized, plan: plan, options: options)
    }
}
