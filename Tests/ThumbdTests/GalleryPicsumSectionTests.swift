import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

/// The gallery page's "Use thumbd as your own Lorem Picsum" section: there, with URL forms
/// whose links work on this library (signed when signing is on), the authors named, and a
/// short note when the routes are off.
@Suite struct GalleryPicsumSectionTests {
    static let files: [String: [UInt8]] = [
        "a/first.png": try! ImageSynthesis.pattern(width: 300, height: 200, seed: 1).encode(.png),
        "b/shot.jpg": TestDocuments.jpeg(try! ImageSynthesis.pattern(width: 400, height: 300, seed: 2).encode(.jpeg, quality: 80),
                                         exifArtist: "Ann Lee"),
    ]

    func page(_ f: LibraryFixture) throws -> String {
        let page = try RawHTTPClient(port: f.port).request("GET", "/")
        #expect(page.status == 200)
        return page.text
    }

    /// The `href`s of the section's links, unescaped.
    func links(_ html: String) throws -> [String] {
        let section = try #require(html.range(of: "<section class=\"picsum\"")).lowerBound
        return html[section...].components(separatedBy: "<a href=\"").dropFirst()
            .compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
            .map { $0.replacingOccurrences(of: "&amp;", with: "&") }
    }

    @Test func theSectionListsTheURLFormsWithLinksThatWork() throws {
        let f = try LibraryFixture(files: Self.files)
        let html = try page(f)
        #expect(html.contains("<h2 id=\"picsum-title\">Use thumbd as your own Lorem Picsum</h2>"))
        #expect(html.contains("href=\"#picsum\""))
        // The example is the image with an author; every form is named.
        let id = PicsumCatalog.preferredID(path: "b/shot.jpg")
        for form in ["/200/300", "/id/\(id)/200/300", "/seed/picsum/200/300", "/id/\(id)/200/300.webp",
                     "/id/\(id)/200/300?grayscale", "/id/\(id)/200/300?blur=2", "/v2/list?page=1&amp;limit=30",
                     "/id/\(id)/info", "picsum.enabled", "mate-backgrounds", "Photographs here by Ann Lee."] {
            #expect(html.contains(form), "\(form)")
        }
        #expect(html.contains("next free number"), "what happens to ids")
        #expect(!html.contains("http://") && !html.contains("https://"), "no scheme or host")
        let targets = try links(html)
        #expect(targets.count == 13, "\(targets)")
        for target in targets {
            let response = try RawHTTPClient(port: f.port).request("GET", target)
            #expect([200, 302].contains(response.status), "\(target): \(response.status)")
        }
    }

    @Test func withSigningTheImageLinksAreSignedAndWork() throws {
        let f = try LibraryFixture(files: Self.files) { $0.security.key = "gallery-picsum-key-123" }
        let targets = try links(page(f))
        #expect(targets.contains { $0.hasPrefix("/id/") && $0.contains("s=") })
        for target in targets {
            let response = try RawHTTPClient(port: f.port).request("GET", target)
            #expect([200, 302].contains(response.status), "\(target): \(response.status)")
        }
    }

    @Test func withPicsumOffTheSectionSaysSo() throws {
        let f = try LibraryFixture(files: Self.files) { $0.picsum.enabled = false }
        let html = try page(f)
        #expect(html.contains("Use thumbd as your own Lorem Picsum"))
        #expect(html.contains("<code>picsum.enabled: false</code>"))
        #expect(try links(html).isEmpty)
    }

    @Test func anEmptyLibraryShowsTheFormsWithoutLinks() {
        let snapshot = LibraryIndex.Snapshot(items: [], fingerprint: "", takenAt: 0)
        let html = GalleryPicsumSection.render(PicsumCatalog(snapshot), links: ImageLinks(signer: nil))
        #expect(html.contains("<code>/id/{id}/200/300</code>") && !html.contains("<a href"))
    }
}
