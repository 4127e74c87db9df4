import Foundation

/// Pages through a Lorem Picsum listing (`/v2/list?page=N&limit=M`): thumbd's own
/// Picsum-compatible one, or picsum.photos'. Each page links the next (`Link: rel="next"`)
/// while there are more.
///
///     var next: URL? = PicsumListing(baseURL: server).firstPage
///     while let url = next {
///         let page = try await listing.page(at: url)
///         cells += page.items      // each item's `url(width:height:)` is a cell's image
///         next = page.next
///     }
public struct PicsumListing: Sendable {
    public let baseURL: URL
    /// Images per page, 1...100.
    public let pageSize: Int
    private let transport: any ThumbdTransport

    public init(baseURL: URL, pageSize: Int = 30, transport: any ThumbdTransport = URLSessionTransport.shared) {
        self.baseURL = baseURL
        self.pageSize = min(100, max(1, pageSize))
        self.transport = transport
    }

    public var firstPage: URL {
        ThumbdURLBuilder(baseURL: baseURL).url(forTarget: "/v2/list?page=1&limit=\(pageSize)")
    }

    public func page(at url: URL) async throws -> PicsumPage {
        let (items, response) = try await ListingRequest.items(PicsumImage.self, at: url, transport: transport)
        return PicsumPage(items: items, previous: ListingRequest.link("prev", of: response, at: url),
                          next: ListingRequest.link("next", of: response, at: url))
    }
}

/// One page of a Picsum listing.
public struct PicsumPage: Sendable {
    public let items: [PicsumImage]
    public let previous: URL?
    public let next: URL?
}
