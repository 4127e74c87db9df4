import ThumbdProtocol

/// How a source of a given (oriented) size becomes the requested output: pure arithmetic,
/// decided before libvips is called, so the output size is known and testable.
public struct ResizePlan: Sendable, Equatable {
    public enum Interest: Sendable, Equatable { case none, centre, entropy, attention }

    /// First step: libvips' shrink-on-load thumbnail to exactly this size (aspect ratio
    /// changes only for `fill`), or, with an `interest`, to cover it and crop there.
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    public var interest: Interest
    /// Then, for directional crops and focal points, this region of the thumbnail.
    public var extract: (left: Int, top: Int, width: Int, height: Int)?
    /// Then, for `fit=pad`, the box the result is centred in (the rest is background).
    public var canvas: (width: Int, height: Int)?

    public var outputWidth: Int { canvas?.width ?? extract?.width ?? thumbnailWidth }
    public var outputHeight: Int { canvas?.height ?? extract?.height ?? thumbnailHeight }

    /// For animations, frame by frame: each frame resized to exactly (width, height), then
    /// `crop` cut from each. A smart crop (an `interest`) becomes a centred one, since it
    /// would choose a different region for every frame.
    public var frames: (width: Int, height: Int, crop: (left: Int, top: Int, width: Int, height: Int)?) {
        if let extract { return (thumbnailWidth, thumbnailHeight, extract) }
        guard interest != .none, let cover = coverSize else { return (thumbnailWidth, thumbnailHeight, nil) }
        return (cover.width, cover.height, ((cover.width - thumbnailWidth) / 2, (cover.height - thumbnailHeight) / 2,
                                            thumbnailWidth, thumbnailHeight))
    }

    /// For a cover with an interest: the size the source is scaled to before the crop.
    var coverSize: (width: Int, height: Int)?

    public static func == (a: ResizePlan, b: ResizePlan) -> Bool {
        a.thumbnailWidth == b.thumbnailWidth && a.thumbnailHeight == b.thumbnailHeight && a.interest == b.interest
            && a.extract?.left == b.extract?.left && a.extract?.top == b.extract?.top
            && a.extract?.width == b.extract?.width && a.extract?.height == b.extract?.height
            && a.canvas?.width == b.canvas?.width && a.canvas?.height == b.canvas?.height
    }

    init(thumbnailWidth: Int, thumbnailHeight: Int, interest: Interest, extract: (left: Int, top: Int, width: Int, height: Int)?,
         canvas: (width: Int, height: Int)? = nil, coverSize: (width: Int, height: Int)? = nil) {
        self.thumbnailWidth = thumbnailWidth
        self.thumbnailHeight = thumbnailHeight
        self.interest = interest
        self.extract = extract
        self.canvas = canvas
        self.coverSize = coverSize
    }

    public static func make(sourceWidth W: Int, sourceHeight H: Int, options: TransformOptions) -> ResizePlan {
        let w = Double(W), h = Double(H)
        func scaled(_ s: Double) -> (Int, Int) { (max(1, Int((w * s).rounded())), max(1, Int((h * s).rounded()))) }
        func noEnlarge(_ s: Double) -> Double { options.enlarge ? s : min(s, 1) }
        // For cover and fill: the box, or, when filling it would need more pixels than the
        // source has and enlarging is off, the largest box of the same aspect ratio that
        // does not (a square cell still gets a square image).
        func box(_ tw: Int, _ th: Int) -> (Int, Int) {
            let need = max(Double(tw) / w, Double(th) / h)
            guard !options.enlarge, need > 1 else { return (tw, th) }
            return (min(W, max(1, Int((Double(tw) / need).rounded()))), min(H, max(1, Int((Double(th) / need).rounded()))))
        }

        switch (options.width, options.height) {
        case (nil, nil):
            return ResizePlan(thumbnailWidth: W, thumbnailHeight: H, interest: .none, extract: nil)
        case (let tw?, nil):
            let (ow, oh) = scaled(noEnlarge(Double(tw) / w))
            return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .none, extract: nil)
        case (nil, let th?):
            let (ow, oh) = scaled(noEnlarge(Double(th) / h))
            return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .none, extract: nil)
        case (let tw?, let th?):
            switch options.fit {
            case .contain, .pad:
                let (ow, oh) = scaled(noEnlarge(min(Double(tw) / w, Double(th) / h)))
                // Letterboxed: always exactly the box, the image centred in it.
                return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .none, extract: nil,
                                  canvas: options.fit == .pad ? (tw, th) : nil)
            case .fill:
                let (ow, oh) = box(tw, th)
                return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .none, extract: nil)
            case .cover:
                let (bw, bh) = box(tw, th)
                let (sw, sh) = scaled(max(Double(bw) / w, Double(bh) / h))
                let ow = min(bw, sw), oh = min(bh, sh)
                if let focus = options.focus {
                    // The focal point as near the middle of the box as the scaled source allows.
                    func start(_ fraction: Double, _ scaled: Int, _ out: Int) -> Int {
                        min(max(0, Int((fraction * Double(scaled) - Double(out) / 2).rounded())), scaled - out)
                    }
                    return ResizePlan(thumbnailWidth: sw, thumbnailHeight: sh, interest: .none,
                                      extract: (start(focus.x, sw, ow), start(focus.y, sh, oh), ow, oh))
                }
                switch options.crop {
                case .center: return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .centre, extract: nil, coverSize: (sw, sh))
                case .entropy: return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .entropy, extract: nil, coverSize: (sw, sh))
                // Faces not known here (or none found): what `crop=face` falls back to.
                case .attention, .face: return ResizePlan(thumbnailWidth: ow, thumbnailHeight: oh, interest: .attention, extract: nil, coverSize: (sw, sh))
                case .top, .bottom, .left, .right:
                    let left = options.crop == .left ? 0 : options.crop == .right ? sw - ow : (sw - ow) / 2
                    let top = options.crop == .top ? 0 : options.crop == .bottom ? sh - oh : (sh - oh) / 2
                    return ResizePlan(thumbnailWidth: sw, thumbnailHeight: sh, interest: .none,
                                      extract: (left, top, ow, oh))
                }
            }
        }
    }
}
