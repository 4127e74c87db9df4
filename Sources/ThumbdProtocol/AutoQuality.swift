/// `q=auto`: the encoder quality chosen per thumbnail, the lowest in `floor...ceiling` whose
/// output stays within `target` of the pixels it was encoded from (1 - MS-SSIM on luma), in at
/// most `encodes` encodings. What a request's `q=auto` or `q=auto:TARGET` becomes with the
/// server's settings (`output.auto_quality_*`); part of the thumbnail's key, since each of
/// them can change its bytes.
public struct AutoQuality: Sendable, Hashable {
    public var target: Double
    public var floor: Int
    public var ceiling: Int
    public var encodes: Int

    /// About what JPEG q=80 gives a typical photograph at 300 px (from 0.0013 to 0.0103 over
    /// the bench's 40 photographs, median 0.0031): q=80's mean distance, evened out.
    public static let defaultTarget = 0.004
    public static let defaultFloor = 30
    /// Below 90, where libvips stops halving JPEG's chroma and the bytes jump for colour the
    /// luma metric cannot see.
    public static let defaultCeiling = 85
    public static let defaultEncodes = 4
    /// What `q=auto:TARGET` and `output.auto_quality_target` take.
    public static let targetRange: ClosedRange<Double> = 0.0005...0.05
    public static let encodesRange: ClosedRange<Int> = 2...8

    public init(target: Double = defaultTarget, floor: Int = defaultFloor, ceiling: Int = defaultCeiling,
                encodes: Int = defaultEncodes) {
        self.target = target
        self.floor = floor
        self.ceiling = ceiling
        self.encodes = encodes
    }

    /// `auto:0.004:30-85:4`, what keys are made of.
    public var keyText: String {
        "auto:\(ThumbnailOptions.decimalText(target)):\(floor)-\(ceiling):\(encodes)"
    }
}
