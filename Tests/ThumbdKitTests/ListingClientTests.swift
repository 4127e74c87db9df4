import Foundation
import Testing
import Thumbd
import ThumbdKit

/// The listing client follows `Link: rel="next"` through every page.
@Suite struct ListingClientTests {
    @Test func pagesAndImagesFollowTheNextLinks() async throws {
        var files: [String: [UInt8]] = [:]
        for i in 0..<5 { files["l/img-\(i).jpg"] = try TestImages.photo(width: 40 + i, height: 30, seed: i) }
        files["l/my photo.jpg"] = try TestImages.photo(width: 20, height: 10)
        let server = try ThumbdServer(files: files)
        defer { withExtendedLifetime(server) {} }
        let listing = ThumbdListing(baseURL: server.baseURL, pageSize: 2, transport: URLSessionTransport())

        var pages: [ListingPage] = []
        for try await page in listing.pages { pages.append(page) }
        #expect(pages.map(\.items.count) == [2, 2, 2])
        #expect(pages.allSatisfy { $0.totalCount == 6 })
        #expect(pages[0].next?.absoluteString == server.baseURL.absoluteString + "/v1/images?page=2&limit=2")
        #expect(pages.last?.next == nil)

        var images: [ListedImage] = []
        for try await image in listing.images { images.append(image) }
        #expect(images.map(\.id) == files.keys.sorted())
        let first = try #require(images.first)
        #expect(first.width == 40 && first.height == 30 && first.format == "jpeg")
        // The server's own links equal the builder's: one URL per image on both sides.
        for image in images { #expect(image.url == server.builder.target(forImage: image.id)) }

        // And a listed image loads.
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        let spaced = try #require(images.first { $0.id == "l/my photo.jpg" })
        #expect(try await loader.load(server.builder.url(forTarget: spaced.url)).image.width == 20)
    }
}
