import Foundation

/// One page of the listing.
public struct ListingPage: Sendable {
    public let items: [ListedImage]
    /// The page after this one, from the `Link: <...>; rel="next"` header; nil on the last.
    public let next: URL?
    /// `X-Total-Count`: images in the whole library.
    public let totalCount: Int?
}
