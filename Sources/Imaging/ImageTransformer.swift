import CVipsShim
import ThumbdProtocol

/// Runs the pipeline on encoded bytes: header check, shrink-on-load thumbnail (auto-rotated,
/// first frame), crop, sRGB, flatten on white where the format has no alpha, encode with
/// metadata stripped. Synchronous and CPU-bound: call it from a worker thread.
public enum ImageTransformer {
    public struct Output: Sendable {
        public var bytes: [UInt8]
        public var format: OutputFormat
        public var width: Int
        public var height: Int
    }

    /// Without `options.format`, the format every client decodes: PNG for an image with
    /// alpha, JPEG otherwise (`OutputFormat.universal`).
    public static func transform(_ data: [UInt8], header: ImageHeader, options: TransformOptions) throws(ImagingError) -> Output {
        let format = options.format ?? .universal(hasAlpha: header.hasAlpha)
        let (sourceWidth, sourceHeight) = header.orientedSize
        let plan = ResizePlan.make(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: options)
        let animated = options.keepsFrames && header.pages > 1
        let decoded: VipsImage
        do {
            var image = try data.withUnsafeBytes { raw in
                VipsImage.attempt { err in
                    if animated {
                        // Every frame resized alike, then the same region cut from each (smart
                        // crops, which would pick a region per frame, are centred instead).
                        let frames = plan.frames
                        return tv_thumbnail_frames(raw.baseAddress, raw.count, Int32(frames.width), Int32(frames.height),
                                                   Int32(frames.crop?.left ?? 0), Int32(frames.crop?.top ?? 0),
                                                   Int32(frames.crop?.width ?? 0), Int32(frames.crop?.height ?? 0), err)
                    }
                    return tv_thumbnail(raw.baseAddress, raw.count, Int32(plan.thumbnailWidth), Int32(plan.thumbnailHeight),
                                        plan.interest == .none ? TV_SIZE_FORCE : TV_SIZE_BOTH, plan.interest.shimCrop, err)
                }
            }.get()
            if !animated, let region = plan.extract {
                let source = image
                image = try VipsImage.make { tv_extract(source.pointer, Int32(region.left), Int32(region.top),
                                                        Int32(region.width), Int32(region.height), $0) }
            }
            let rgb = image
            image = try VipsImage.make { tv_to_srgb(rgb.pointer, $0) }
            if image.hasAlpha && !format.supportsAlpha {
                let withAlpha = image
                image = try VipsImage.make { tv_flatten(withAlpha.pointer, 255, 255, 255, $0) }
            }
            // Decoding is lazy: a truncated source fails here, while pixels are pulled, so
            // that a failure while encoding is the encoder's (a server error, not the client's).
            let pixels = image
            decoded = try VipsImage.make { tv_materialize(pixels.pointer, $0) }
        } catch {
            throw .undecodable(error.message)
        }
        let bytes: [UInt8]
        do {
            bytes = try decoded.encode(format, quality: options.quality ?? OutputFormat.defaultQuality, progressive: options.progressive)
        } catch {
            throw .encodingFailed(error.message)
        }
        return Output(bytes: bytes, format: format, width: decoded.width, height: animated ? decoded.frameHeight : decoded.height)
    }

    /// Header checks that must pass before any pixel is decoded. With `animated`, every frame
    /// counts against the pixel limit and the frames against `maxFrames`.
    public static func checkedHeader(_ data: [UInt8], maxPixels: Int, animated: Bool = false,
                                     maxFrames: Int = .max) throws(ImagingError) -> ImageHeader {
        let header = try ImageHeader.read(data)
        let frames = animated ? header.pages : 1
        if animated && frames > maxFrames {
            throw .tooManyFrames(frames: frames, limit: maxFrames)
        }
        if header.width * header.height * frames > maxPixels {
            throw .tooManyPixels(width: header.width, height: header.height * frames, limit: maxPixels)
        }
        return header
    }
}

extension ResizePlan.Interest {
    var shimCrop: tv_crop {
        switch self {
        case .none: TV_CROP_NONE
        case .centre: TV_CROP_CENTRE
        case .entropy: TV_CROP_ENTROPY
        case .attention: TV_CROP_ATTENTION
        }
    }
}
