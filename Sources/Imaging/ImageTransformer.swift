import CVipsShim
import ThumbdProtocol

/// Runs the pipeline on encoded bytes, in the order `TransformOptions` states: orientation
/// (shrink-on-load thumbnail, auto-rotated, one page), faces pixelated (`redact`), `rect`,
/// `trim`, resize and fit (with a focal point, one the faces give for `crop=face`, or
/// letterboxed for `fit=pad`), sRGB, rotation and mirror, padding, blur,
/// sharpen, grey, watermark, flattening on the background where the format has no alpha,
/// and encoding with metadata stripped (within `mb`). Synchronous and CPU-bound: call it from
/// a worker thread.
public enum ImageTransformer {
    public struct Output: Sendable {
        public var bytes: [UInt8]
        public var format: OutputFormat
        public var width: Int
        public var height: Int
        /// The size of the shared decode it was resized from, when it was (`SharedDecode`):
        /// another resampling path than from the bytes, so another ETag.
        public var sharedDecode: (width: Int, height: Int)?
        /// The quality `q=auto` chose, and what choosing cost; nil for a fixed quality.
        public var autoQuality: QualitySearch.Choice?
    }

    /// Without `options.format`, the format every client decodes: PNG for an image with
    /// alpha, JPEG otherwise (`OutputFormat.universal`). `watermark`: the encoded watermark
    /// image when `options.watermark` is set.
    /// `shared`: a decode of the same source made for several sizes at once (`SharedDecode`),
    /// used when it serves this one (`SharedDecode.serves`) and gives the plan's exact size.
    /// `stop`: asked while pixels are computed; when it says so, the work is killed and
    /// `ImagingError.cancelled` thrown (the encoder, which runs last, is not interrupted).
    /// `faces`: the faces `FaceDetector` found in the source, for `crop=face` and `redact=face`;
    /// a redaction without them fails (`faceDetectionFailed`) rather than hide nothing.
    public static func transform(_ data: [UInt8], header: ImageHeader, options: TransformOptions,
                                 faces: [PixelRect]? = nil, watermark: [UInt8]? = nil, shared: SharedDecode? = nil,
                                 stop: StopCheck? = nil) throws(ImagingError) -> Output {
        let format = options.format ?? .universal(hasAlpha: header.hasAlpha)
        if options.redact != nil && faces == nil {
            throw .faceDetectionFailed("a redaction was asked without the source's faces")
        }
        let animated = options.keepsFrames && header.pages > 1
        guard options.page <= header.pages else {
            throw .badParameter(name: "page", detail: "page \(options.page) is past the source's \(header.pages) page(s)")
        }
        let decoded: VipsImage
        var usedShared: SharedDecode?
        do {
            var image: VipsImage
            if let shared, shared.serves(options, header: header), let resized = try shared.resized(for: options, header: header) {
                image = resized
                usedShared = shared
            } else {
                image = try decode(data, header: header, options: options, faces: faces ?? [], animated: animated, stop: stop)
            }
            image = try finish(image, options: options, format: format, watermark: watermark, stop: stop)
            // Decoding is lazy: a truncated source fails here, while pixels are pulled, so
            // that a failure while encoding is the encoder's (a server error, not the client's).
            decoded = try image.materialized(stop: stop)
        } catch let error as ImagingError {
            throw error
        } catch {
            throw .undecodable((error as? VipsCallError)?.message ?? "\(error)")
        }
        let (bytes, choice) = try encode(decoded, format: format, options: options)
        return Output(bytes: bytes, format: format, width: decoded.width, height: animated ? decoded.frameHeight : decoded.height,
                      sharedDecode: usedShared.map { ($0.width, $0.height) }, autoQuality: choice)
    }

    /// The source decoded, cut (`rect`, `trim`) and resized to the plan: shrink-on-load from
    /// the bytes when nothing is cut or redacted first; from the whole decoded page otherwise.
    private static func decode(_ data: [UInt8], header: ImageHeader, options asked: TransformOptions, faces: [PixelRect],
                               animated: Bool, stop: StopCheck?) throws -> VipsImage {
        let (sourceWidth, sourceHeight) = header.orientedSize
        // A vector source is drawn at the size asked: enlarging it loses nothing.
        var options = asked
        if header.isVector { options.enlarge = true }
        let page = Int32(options.page - 1)
        var plan: ResizePlan
        var image: VipsImage
        if options.region == nil && options.trim == nil && options.redact == nil {
            options = FaceLayout.settled(options, faces: faces, width: sourceWidth, height: sourceHeight)
            plan = ResizePlan.make(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: options)
            let fixed = plan
            image = try data.withUnsafeBytes { raw in
                VipsImage.attempt { err in
                    if animated {
                        // Every frame resized alike, then the same region cut from each (smart
                        // crops, which would pick a region per frame, are centred instead).
                        let frames = fixed.frames
                        return tv_thumbnail_frames(raw.baseAddress, raw.count, Int32(frames.width), Int32(frames.height),
                                                   Int32(frames.crop?.left ?? 0), Int32(frames.crop?.top ?? 0),
                                                   Int32(frames.crop?.width ?? 0), Int32(frames.crop?.height ?? 0), err)
                    }
                    return tv_thumbnail_page(raw.baseAddress, raw.count, Int32(fixed.thumbnailWidth), Int32(fixed.thumbnailHeight),
                                             fixed.interest == .none ? TV_SIZE_FORCE : TV_SIZE_BOTH, fixed.interest.shimCrop, page, err)
                }
            }.get()
            if animated { return image }
        } else {
            // The whole page, oriented, at its own size: what `rect` counts in and `trim` looks at.
            var whole = try data.withUnsafeBytes { raw in
                VipsImage.attempt { tv_thumbnail_page(raw.baseAddress, raw.count, Int32(sourceWidth), Int32(sourceHeight),
                                                      TV_SIZE_DOWN, TV_CROP_NONE, page, $0) }
            }.get()
            // Decoded once into memory: find_trim reads it all, and the crop after reads it again.
            whole = try whole.materialized(stop: stop)
            if options.redact == .face {
                // In the source's own pixels, before anything could show a face at another scale.
                // The boxes were found in the oriented first page at its header's size: on any
                // other size they would miss, so the redaction fails instead.
                guard whole.width == sourceWidth, whole.height == sourceHeight else {
                    throw ImagingError.faceDetectionFailed("the page decoded at \(whole.width)x\(whole.height), its faces were found at \(sourceWidth)x\(sourceHeight)")
                }
                for face in faces {
                    let box = FaceLayout.grown(face, width: whole.width, height: whole.height)
                    guard box.width > 0, box.height > 0 else { continue }
                    let source = whole
                    whole = try VipsImage.make { tv_pixelate(source.pointer, Int32(box.x), Int32(box.y), Int32(box.width),
                                                             Int32(box.height), Int32(Self.redactionCells), $0) }
                }
            }
            // Where the image being resized lies in the source: what faces are placed by.
            var cut = PixelRect(x: 0, y: 0, width: whole.width, height: whole.height)
            if let region = options.region {
                guard region.x + region.width <= whole.width, region.y + region.height <= whole.height else {
                    throw ImagingError.badParameter(name: "rect", detail: "rect \(region) is outside the \(whole.width)x\(whole.height) source")
                }
                let source = whole
                whole = try VipsImage.make { tv_extract(source.pointer, Int32(region.x), Int32(region.y),
                                                        Int32(region.width), Int32(region.height), $0) }
                cut = region
            }
            if let threshold = options.trim {
                var left: Int32 = 0, top: Int32 = 0, width: Int32 = 0, height: Int32 = 0
                var message: UnsafeMutablePointer<CChar>?
                guard tv_find_trim(whole.pointer, Double(threshold), &left, &top, &width, &height, &message) == 0 else {
                    throw VipsCallError(message: takeMessage(message))
                }
                // An image that is all border stays as it is.
                if width > 0, height > 0 {
                    let source = whole
                    whole = try VipsImage.make { tv_extract(source.pointer, left, top, width, height, $0) }
                    cut = PixelRect(x: cut.x + Int(left), y: cut.y + Int(top), width: Int(width), height: Int(height))
                }
            }
            options = FaceLayout.settled(options, faces: FaceLayout.within(faces, cut: cut), width: whole.width, height: whole.height)
            plan = ResizePlan.make(sourceWidth: whole.width, sourceHeight: whole.height, options: options)
            let source = whole, fixed = plan
            image = try VipsImage.make {
                tv_thumbnail_image(source.pointer, Int32(fixed.thumbnailWidth), Int32(fixed.thumbnailHeight),
                                   fixed.interest == .none ? TV_SIZE_FORCE : TV_SIZE_BOTH, fixed.interest.shimCrop, $0)
            }
        }
        return try placed(image, plan: plan, options: options)
    }

    /// Cells across the longer side of a redacted face (with its margin): about four across
    /// the face itself, too few to recognise anyone at any output size.
    static let redactionCells = 6

    /// A resized image cut to the plan's region, in sRGB, centred on its canvas (`fit=pad`).
    static func placed(_ resized: VipsImage, plan: ResizePlan, options: TransformOptions) throws -> VipsImage {
        var image = resized
        if let region = plan.extract {
            let source = image
            image = try VipsImage.make { tv_extract(source.pointer, Int32(region.left), Int32(region.top),
                                                    Int32(region.width), Int32(region.height), $0) }
        }
        let rgb = image
        image = try VipsImage.make { tv_to_srgb(rgb.pointer, $0) }
        if let canvas = plan.canvas {
            image = try embed(image, in: canvas, at: ((canvas.width - image.width) / 2, (canvas.height - image.height) / 2),
                              colour: options.background ?? .white)
        }
        return image
    }

    /// Everything after the resize, in order.
    private static func finish(_ input: VipsImage, options: TransformOptions, format: OutputFormat,
                               watermark: [UInt8]?, stop: StopCheck?) throws -> VipsImage {
        var image = input
        func step(_ call: (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OpaquePointer?) throws {
            let source = image
            image = try VipsImage.make { call(source.pointer, $0) }
        }
        let background = options.background ?? .white
        if options.rotation != 0 {
            // A turn reads out of order: the resized image (a sequential decode) goes to memory first.
            image = try image.materialized(stop: stop)
            try step { tv_rotate($0, Int32(options.rotation), $1) }
        }
        if options.mirrored { try step { tv_mirror($0, $1) } }
        if let padding = options.padding {
            image = try embed(image, in: (image.width + padding.left + padding.right, image.height + padding.top + padding.bottom),
                              at: (padding.left, padding.top), colour: background)
        }
        if let sigma = options.blur { try step { tv_blur($0, sigma, $1) } }
        if let sigma = options.sharpen { try step { tv_sharpen($0, sigma, $1) } }
        if options.gray { try step { tv_gray($0, $1) } }
        if let mark = options.watermark, let watermark {
            try watermark.withUnsafeBytes { raw in
                try step { tv_watermark($0, raw.baseAddress, raw.count, mark.scale, mark.opacity, Int32(mark.position.index),
                                        Int32(mark.padding), $1) }
            }
            // The composite is colour with alpha: grey asked for stays grey.
            if options.gray { try step { tv_gray($0, $1) } }
        }
        if image.hasAlpha && !format.supportsAlpha {
            try step { tv_flatten($0, Double(background.red), Double(background.green), Double(background.blue), $1) }
        }
        return image
    }

    private static func embed(_ image: VipsImage, in box: (width: Int, height: Int), at origin: (x: Int, y: Int),
                              colour: RGBAColor) throws -> VipsImage {
        try VipsImage.make {
            tv_embed(image.pointer, Int32(origin.x), Int32(origin.y), Int32(box.width), Int32(box.height), Double(colour.red),
                     Double(colour.green), Double(colour.blue), Double(colour.alpha), $0)
        }
    }

    /// Encoded at the asked quality, or with `q=auto` at the one `QualitySearch` chooses; with
    /// `mb`, the highest quality (below that) whose bytes fit, found by bisection between it
    /// and 10 in at most six encodings (400 naming `mb` if 10 is too big).
    static func encode(_ image: VipsImage, format: OutputFormat,
                       options: TransformOptions) throws(ImagingError) -> ([UInt8], QualitySearch.Choice?) {
        func encoded(_ quality: Int) throws(ImagingError) -> [UInt8] {
            do {
                return try image.encode(format, quality: quality, progressive: options.progressive,
                                        avifEffort: options.avifEffort ?? OutputFormat.defaultAVIFEffort)
            } catch {
                throw .encodingFailed(error.message)
            }
        }
        var asked = options.quality ?? OutputFormat.defaultQuality
        var choice: QualitySearch.Choice?
        let first: [UInt8]
        if let auto = options.autoQuality, format.measuresQuality {
            let reference: LumaPlane
            do throws(VipsCallError) { reference = try image.luma() } catch { throw .encodingFailed(error.message) }
            let search = QualitySearch(target: auto.target, floor: auto.floor, ceiling: auto.ceiling, encodes: auto.encodes,
                                       start: format.autoQualityStart)
            (first, choice) = try search.run { quality throws(ImagingError) in
                let bytes = try encoded(quality)
                let distance: Double
                do throws(VipsCallError) { distance = try reference.distance(to: bytes) } catch { throw .encodingFailed(error.message) }
                return QualitySearch.Trial(quality: quality, distance: distance, bytes: bytes)
            }
            asked = choice?.quality ?? asked
        } else {
            first = try encoded(asked)
        }
        guard let limit = options.maxBytes, first.count > limit else { return (first, choice) }
        let lowest = 10
        let refusal = ImagingError.badParameter(name: "mb", detail: "mb=\(limit): the smallest encoding is larger")
        guard format.usesQuality, asked > lowest else { throw refusal }
        var best = try encoded(lowest)
        guard best.count <= limit else { throw refusal }
        var fits = lowest, tooBig = asked
        for _ in 0..<4 where tooBig - fits > 1 {
            let middle = (fits + tooBig) / 2
            let bytes = try encoded(middle)
            if bytes.count <= limit {
                fits = middle
                best = bytes
            } else {
                tooBig = middle
            }
        }
        return (best, nil)
    }

    /// Header checks that must pass before any pixel is decoded, on the `page` that will be
    /// (each page of a TIFF or HEIF may have its own size). With `animated`, every frame counts
    /// against the pixel limit and the frames against `maxFrames`.
    public static func checkedHeader(_ data: [UInt8], maxPixels: Int, animated: Bool = false,
                                     maxFrames: Int = .max, page: Int = 1) throws(ImagingError) -> ImageHeader {
        var header = try ImageHeader.read(data)
        if page > 1 {
            guard page <= header.pages else {
                throw .badParameter(name: "page", detail: "page \(page) is past the source's \(header.pages) page(s)")
            }
            header = try ImageHeader.read(data, page: page)
        }
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

extension WatermarkPosition {
    /// Rows (top, middle, bottom) of columns (left, centre, right), as the shim counts them.
    var index: Int { Self.allCases.firstIndex(of: self)! }
}
