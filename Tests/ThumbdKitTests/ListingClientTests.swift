import Foundation
import Imaging
import Testing
import Thumbd
import ThumbdCore
import ThumbdKit
import ThumbdProtocol
import TestSupport

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

    /// Each listed image carries its ThumbHash, which the kit decodes into a placeholder of the
    /// image's colour and shape without a request.
    @Test func listedImagesCarryAPlaceholderTheKitDecodes() async throws {
        let red = try ImageSynthesis.solid(width: 400, height: 200, color: [220, 30, 30]).encode(.png)
        let server = try ThumbdServer(files: ["red.png": red])
        defer { withExtendedLifetime(server) {} }
        let listing = ThumbdListing(baseURL: server.baseURL, pageSize: 10, transport: URLSessionTransport())
        var images: [ListedImage] = []
        for try await image in listing.images { images.append(image) }
        let item = try #require(images.first)
        let placeholder = try #require(item.thumbnailPlaceholder)
        let colour = try #require(placeholder.averageColor)
        #expect(colour.red > 0.7 && colour.green < 0.25 && colour.blue < 0.25, "\(colour)")
        #expect(try #require(placeholder.approximateAspectRatio) > 1.5)
        let pixels = try #require(placeholder.pixels())
        #expect(pixels.width == 32 && pixels.height < 32 && pixels.rgba.count == pixels.width * pixels.height * 4)
        #expect(pixels.rgba[0] > 150 && pixels.rgba[1] < 80)
        #expect(item.color?.hasPrefix("#") == true && item.color?.count == 7)
        #expect(ThumbnailPlaceholder(base64: "not base64!") == nil && ThumbnailPlaceholder(base64: "") == nil)
    }

    /// One image's details carry the faces the server found, in the image's pixels, so an app
    /// can place overlays or crop by them itself; `crop=face` from the builder keeps them.
    @Test func detailsCarryTheFacesAndTheBuilderAsksForFaceCrops() async throws {
        let server = try ThumbdServer(files: ["people/astronaut.png": try FacePhotos.bytes("astronaut.png")])
        defer { withExtendedLifetime(server) {} }
        let listing = ThumbdListing(baseURL: server.baseURL, transport: URLSessionTransport())
        let details = try await listing.details(of: "people/astronaut.png")
        #expect(details.width == 512 && details.height == 512 && details.format == "png" && details.url == "/img/people/astronaut.png")
        let face = try #require(details.faces?.first)
        let labelled = try #require(FacePhotos.labelled.first { $0.name == "astronaut.png" }?.faces.first)
        #expect(FacePhotos.overlap(face.box, labelled) >= 0.5)
        let score = try #require(face.score, "the CNN scores each face")
        #expect(score >= 0.6 && score <= 1)
        var options = ThumbnailOptions(width: 120, height: 60, fit: .cover, crop: .face, format: .png)
        options.redact = .face
        let url = server.builder.imageURL("people/astronaut.png", options: options)
        #expect(url.query?.contains("crop=face") == true && url.query?.contains("redact=face") == true)
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        #expect(try await loader.load(url).image.width == 120)
    }
}
