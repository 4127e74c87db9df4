import ThumbdProtocol

/// The size of what a transform makes, worked out from the header and the options before any
/// pixel is decoded: the resize plan of the (cut) source, then rotation and padding, every
/// frame when they are kept. What the output limits are checked against and what the
/// working-memory estimate is made from.
public struct OutputGeometry: Sendable, Equatable {
    /// The source region the plan starts from (the page, or `rect`'s region; a `trim` can
    /// only make it smaller, so the page counts).
    public var cutWidth: Int
    public var cutHeight: Int
    /// The resized image, before rotation and padding (one frame).
    public var resizedWidth: Int
    public var resizedHeight: Int
    /// The final image of one frame: rotated, padded.
    public var width: Int
    public var height: Int
    public var frames: Int

    public var pixels: Int { width * height * frames }

    public init(header: ImageHeader, options asked: TransformOptions) {
        var options = asked
        // A vector source is drawn at the size asked (ImageTransformer.decode).
        if header.isVector { options.enlarge = true }
        let (sourceWidth, sourceHeight) = header.orientedSize
        cutWidth = options.region.map { min($0.width, sourceWidth) } ?? sourceWidth
        cutHeight = options.region.map { min($0.height, sourceHeight) } ?? sourceHeight
        let plan = ResizePlan.make(sourceWidth: cutWidth, sourceHeight: cutHeight, options: options)
        resizedWidth = plan.outputWidth
        resizedHeight = plan.outputHeight
        let quarterTurn = options.rotation == 90 || options.rotation == 270
        width = (quarterTurn ? resizedHeight : resizedWidth) + (options.padding.map { $0.left + $0.right } ?? 0)
        height = (quarterTurn ? resizedWidth : resizedHeight) + (options.padding.map { $0.top + $0.bottom } ?? 0)
        frames = options.keepsFrames ? max(1, header.pages) : 1
    }

    /// Within `maxDimension` a side and `maxPixels` in all (every frame): else the error that
    /// refuses it before anything is decoded.
    public func check(maxDimension: Int, maxPixels: Int) throws(ImagingError) {
        if width > maxDimension || height > maxDimension {
            throw .outputTooLarge(width: width, height: height, detail: "over the limit of \(maxDimension) pixels a side")
        }
        if pixels > maxPixels {
            throw .outputTooLarge(width: width, height: height * frames, detail: "over the limit of \(maxPixels) pixels")
        }
    }
}
