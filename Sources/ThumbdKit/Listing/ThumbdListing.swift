import Foundation
import WireCoding
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pages through a server's library listing (`/v1/images?page=N&limit=M`) by following each
/// page's `Link: rel="next"`, as an async sequence of pages or of images.
///
///     for try await image in ThumbdListing(baseURL: server).images { ... }
public struct ThumbdListing: Sendable {
    public let baseURL: URL
    /// Images per page, 1...100.
    public let pageSize: Int
    private let transport: any ThumbdTransport

    public init(baseURL: URL, pageSize: Int = 30, transport: any ThumbdTransport = URLSessionTransport.shared) {
        self.baseURL = baseURL
        self.pageSize = min(100, max(1, pageSize))
        self.transport = transport
    }

    /// The first page's URL.
    public var firstPage: URL {
        ThumbdURLBuilder(baseURL: baseURL).url(forTarget: "/v1/images?page=1&limit=\(pageSize)")
    }

    public var pages: Pages { Pages(listing: self) }

    public var images: Images { Images(listing: self) }

    /// Fetches one page.
    public func page(at url: URL) async throws -> ListingPage {
        let (items, response) = try await ListingRequest.items(ListedImage.self, at: url, transport: transport)
        return ListingPage(items: items, next: ListingRequest.link("next", of: response, at: url),
                           totalCount: response.header("X-Total-Count").flatMap { Int($0) })
    }

    /// One library image's facts and faces (`/v1/images/{path}`).
    public func details(of path: String) async throws -> ImageDetails {
        let url = ThumbdURLBuilder(baseURL: baseURL).url(forTarget: "/v1/images/" + PercentCoding.encode(path, keepingSlashes: true))
        return try await ListingRequest.item(ImageDetails.self, at: url, transport: transport)
    }

    /// The pages, first to last.
    public struct Pages: AsyncSequence, Sendable {
        public typealias Element = ListingPage
        let listing: ThumbdListing

        public func makeAsyncIterator() -> Iterator {
            Iterator(listing: listing, nextPage: listing.firstPage)
        }

        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let listing: ThumbdListing
            var nextPage: URL?

            public mutating func next() async throws -> ListingPage? {
                guard let url = nextPage else { return nil }
                let page = try await listing.page(at: url)
                nextPage = page.next
                return page
            }
        }
    }

    /// The images of every page, in order; a page is fetched when the one before is used up.
    public struct Images: AsyncSequence, Sendable {
        public typealias Element = ListedImage
        let listing: ThumbdListing

        public func makeAsyncIterator() -> Iterator {
            Iterator(pages: Pages(listing: listing).makeAsyncIterator())
        }

        public struct Iterator: AsyncIteratorProtocol, Sendable {
            var pages: Pages.Iterator
            var buffered: [ListedImage] = []
            var index = 0

            public mutating func next() async throws -> ListedImage? {
                while index >= buffered.count {
                    guard let page = try await pages.next() else { return nil }
                    buffered = page.items
                    index = 0
                }
                defer { index += 1 }
                return buffered[index]
            }
        }
    }
}
