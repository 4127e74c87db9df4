import Foundation
import ThumbHash

/// A listing item's or an image info's `placeholder`: a ThumbHash (base64) to paint in a cell
/// until its thumbnail arrives, so a fast scroll shows colours and shapes, never blank cells.
/// Decoding costs microseconds and no request.
public struct ThumbnailPlaceholder: Sendable, Hashable {
    /// The hash's bytes (25 to 35 for the server's hashes).
    public let hash: [UInt8]

    /// Nil for text that is not base64 or holds no hash.
    public init?(base64: String) {
        guard let data = Data(base64Encoded: base64), ThumbHash.approximateAspectRatio([UInt8](data)) != nil else { return nil }
        hash = [UInt8](data)
    }

    /// RGBA pixels (8 bits each, not premultiplied) at the image's aspect ratio, the longer side
    /// `maxSide`: scale them up with smoothing. Nil for a malformed hash.
    public func pixels(maxSide: Int = 32) -> (width: Int, height: Int, rgba: [UInt8])? {
        ThumbHash.decode(hash, maxSide: maxSide)
    }

    /// The average colour, components in 0...1: a flat fill where drawing pixels is too much.
    public var averageColor: (red: Double, green: Double, blue: Double, alpha: Double)? {
        ThumbHash.averageColor(hash).map { (red: $0.r, green: $0.g, blue: $0.b, alpha: $0.a) }
    }

    /// Width over height, roughly (the hash keeps only the ratio of its term counts).
    public var approximateAspectRatio: Double? { ThumbHash.approximateAspectRatio(hash) }
}
