import Dispatch
import Foundation
import HTTP
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct OpenAPIDocumentTests {
    static let root = PackageRoot.url

    @Test func theServerServesTheDocumentInTheRepository() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(OpenAPIText.text + "\n" == file, "the build embedded another docs/openapi.yaml")
        let f = try LibraryFixture()
        let served = try RawHTTPClient(port: f.port).request("GET", "/openapi.yaml")
        #expect(served.status == 200 && served.header("Content-Type") == "application/yaml")
        #expect(served.text.hasPrefix("openapi: 3.1"))
    }
}

/// The gallery page served is `Sources/Thumbd/Assets/gallery.html`, its slots all filled.
@Suite struct GalleryPageTests {
    @Test func theServerServesThePageInTheRepository() throws {
        let file = try String(contentsOf: OpenAPIDocumentTests.root.appendingPathComponent("Sources/Thumbd/Assets/gallery.html"),
                              encoding: .utf8)
        #expect(GalleryHTML.text + "\n" == file, "the build embedded another gallery.html")
        #expect(Set(GalleryRoute.template.slots) == ["count", "picsum_anchor", "grid", "picsum", "selftest", "probe_url"])
        let f = try LibraryFixture(files: ["{{grid}}.png": try ImageSynthesis.pattern(width: 64, height: 48).encode(.png)])
        let page = try RawHTTPClient(port: f.port).request("GET", "/")
        #expect(page.status == 200 && page.text.hasPrefix("<!doctype html>"))
        #expect(!page.text.contains("{{picsum}}") && !page.text.contains("{{count}}"))
        #expect(page.text.contains("1 image ·") && page.text.contains("{{grid}}.png"))
    }

    @Test func aTemplateIsFilledInOnePass() {
        let template = PageTemplate("<p>{{a}} and {{b}}</p>{{missing}}")
        #expect(template.slots == ["a", "b", "missing"])
        #expect(template.filled(["a": "{{b}}", "b": "x"]) == "<p>{{b}} and x</p>")
        #expect(PageTemplate("no slots }} {{ here").filled([:]) == "no slots }} {{ here")
    }
}
