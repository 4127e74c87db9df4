import Imaging
import ThumbdProtocol

/// The output format as it goes into a thumbnail's cache key.
package enum FormatTag: Sendable, Hashable {
    /// Chosen by `fm`, or by the source's format when there is none.
    case chosen(OutputFormat?)
    /// `fm=auto`: AVIF or WebP when the client accepts them, otherwise the legacy choice
    /// (JPEG, or PNG for an image with alpha), which the image itself decides.
    case negotiated(OutputFormat?)

    package var text: String {
        switch self {
        case .chosen(let format): format?.rawValue ?? "source"
        case .negotiated(let format): format?.rawValue ?? "legacy"
        }
    }
}
