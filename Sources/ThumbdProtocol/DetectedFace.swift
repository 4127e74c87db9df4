/// A face the server found: its box in the image's pixels after EXIF orientation, and the
/// detector's confidence in it, 0 to 1 (nil from the Haar cascades, which give none). On the
/// wire it is one object, `{"x","y","width","height","score"}`: the box's fields beside the score.
public struct DetectedFace: Sendable, Hashable, Codable, CustomStringConvertible {
    public var box: PixelRect
    public var score: Double?

    public init(box: PixelRect, score: Double? = nil) {
        self.box = box
        self.score = score
    }

    private enum CodingKeys: String, CodingKey { case score }

    public init(from decoder: any Decoder) throws {
        box = try PixelRect(from: decoder)
        score = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Double.self, forKey: .score)
    }

    public func encode(to encoder: any Encoder) throws {
        try box.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(score, forKey: .score)
    }

    public var description: String { score.map { "\(box)@\($0)" } ?? box.description }
}
