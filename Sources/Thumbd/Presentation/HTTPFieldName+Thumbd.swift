import HTTP
import ThumbdCore

/// The fields thumbd adds of its own.
extension HTTPFieldName {
    /// Where an image answer came from: `memory`, `disk` or `miss`.
    static let xCache: Self = "X-Cache"
    /// The listing's total number of images.
    static let xTotalCount: Self = "X-Total-Count"
    /// The id of the image a Picsum-compatible answer shows.
    static let picsumID: Self = "Picsum-ID"
}
