import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// The image operations through the server: one cache entry and one ETag for every spelling
/// of the same request, the byte budget, JPEG XL negotiation, watermarks from the library.
@Suite struct ImageOperationsRouteTests {
    static let photo: [UInt8] = try! ImageSynthesis.pattern(width: 640, height: 480, seed: 4).encode(.jpeg)
    static let mark: [UInt8] = try! ImageSynthesis.solid(width: 40, height: 40, color: [0, 0, 0, 255]).encode(.png)

    func etag(_ f: LibraryFixture, _ query: String, headers: [String] = []) throws -> String? {
        let response = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?" + query, headers: headers)
        #expect(response.status == 200, "\(query): \(response.status) \(response.text)")
        return response.header("ETag")
    }

    @Test func equivalentSpellingsShareOneEntryAndOneETag() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo])
        let groups: [[String]] = [
            ["w=100&fm=png&pad=6&bg=FF0000", "w=100&fm=png&pad=6,6,6,6&bg=ff0000ff", "w=50&dpr=2&fm=png&pad=3&bg=ff0000"],
            ["w=100&bg=ffffff", "w=100", "w=100&bg=FFFFFFFF"],
            ["w=100&h=100&fit=cover&fp=0.50,0.250", "w=100&h=100&fit=cover&fp=0.5,0.25", "w=100&h=100&fit=cover&crop=top&fp=0.5,0.25"],
            ["w=100&h=100&fit=cover&fp=0.5,0.5", "w=100&h=100&fit=cover"],
            ["w=100&rot=360", "w=100&rot=0", "w=100", "w=100&rot=-360"],
            ["w=100&rot=-90", "w=100&rot=270", "w=100&rot=630"],
            ["w=100&flip=hv", "w=100&rot=180"],
            ["w=100&flip=v", "w=100&rot=180&flip=h"],
            ["w=100&blur=0", "w=100", "w=100&sharpen=0"],
            ["w=100&blur=2.04", "w=100&blur=2"],
            ["w=100&fm=png&bg=123456", "w=100&fm=png"],  // PNG keeps alpha and nothing pads: bg cannot show
        ]
        for group in groups {
            let tags = try group.map { try etag(f, $0) }
            #expect(tags[0] != nil && Set(tags).count == 1, "\(group): \(tags)")
        }
        #expect(try etag(f, "w=100&rot=90") != etag(f, "w=100"))
        #expect(try etag(f, "w=100&fm=jpeg&pad=5&bg=000000") != etag(f, "w=100&fm=jpeg&pad=5"))
    }

    @Test func aByteBudgetIsKeptOrRefusedNamingMB() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo])
        let fitted = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=600&fm=jpeg&q=95&mb=5000")
        #expect(fitted.status == 200 && fitted.body.count <= 5000 && fitted.body.count > 0)
        let refused = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=600&fm=png&mb=5000")
        #expect(refused.status == 400 && refused.text.contains("\"parameter\":\"mb\""), "\(refused.text)")
    }

    @Test func jpegXLIsWrittenAndNegotiatedOnlyWhenNamed() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo])
        let jxl = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=100&fm=jxl")
        #expect(jxl.status == 200 && jxl.header("Content-Type") == "image/jxl" && jxl.body.starts(with: [0xFF, 0x0A]))
        func negotiated(_ accept: String) throws -> String? {
            try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=100&fm=auto", headers: ["Accept: \(accept)"]).header("Content-Type")
        }
        #expect(try negotiated("image/avif,image/jxl,image/webp") == "image/avif")
        #expect(try negotiated("image/jxl,image/webp,*/*") == "image/jxl")
        #expect(try negotiated("image/webp,*/*") == "image/webp")
    }

    @Test func theAVIFEffortChangesOnlyAVIFOutputsAndTheirKeys() throws {
        let quick = try LibraryFixture(files: ["a.jpg": Self.photo])
        let thorough = try LibraryFixture(files: ["a.jpg": Self.photo]) { $0.output.avifEffort = 6 }
        // One version of the source in both libraries (a file's version is its size and mtime).
        for f in [quick, thorough] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                                                  ofItemAtPath: f.root.appendingPathComponent("library/a.jpg").path)
        }
        func get(_ f: LibraryFixture, _ target: String, _ headers: [String] = []) throws -> RawHTTPClient.Response {
            try RawHTTPClient(port: f.port).request("GET", target, headers: headers)
        }
        let one = try get(quick, "/img/a.jpg?w=300&fm=avif"), six = try get(thorough, "/img/a.jpg?w=300&fm=avif")
        #expect(one.status == 200 && six.status == 200 && six.header("Content-Type") == "image/avif")
        // Another effort is another encoding: another key and ETag, never the other's bytes.
        #expect(one.header("ETag") != six.header("ETag") && one.body != six.body)
        let negotiated = try get(thorough, "/img/a.jpg?w=300&fm=auto", ["Accept: image/avif"])
        #expect(negotiated.header("Content-Type") == "image/avif" && negotiated.header("ETag") != one.header("ETag"))
        // Other formats keep their keys and ETags whatever the effort.
        #expect(try get(quick, "/img/a.jpg?w=300&fm=webp").header("ETag") == get(thorough, "/img/a.jpg?w=300&fm=webp").header("ETag"))
    }

    @Test func watermarksComeFromTheLibraryAndTheirVersionIsInTheKey() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo, "marks/logo.png": Self.mark])
        let marked = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=200&fm=png&wm=marks/logo.png&wmpos=nw&wmpad=0&wmscale=0.2")
        #expect(marked.status == 200)
        let corner = try VipsImage.decode(marked.body).pixel(x: 5, y: 5)
        #expect(corner.prefix(3).allSatisfy { $0 < 15 }, "the black mark at the top left: \(corner)")
        let missing = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=200&wm=marks/none.png")
        #expect(missing.status == 400 && missing.text.contains("\"parameter\":\"wm\""))
        // A replaced watermark makes a new output, never the old one from a tier.
        let before = marked.header("ETag")
        try Data(ImageSynthesis.solid(width: 40, height: 40, color: [255, 0, 0, 255]).encode(.png))
            .write(to: f.root.appendingPathComponent("library/marks/logo.png"))
        let after = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=200&fm=png&wm=marks/logo.png&wmpos=nw&wmpad=0&wmscale=0.2")
        #expect(after.header("ETag") != before && after.header("X-Cache") == "miss")
    }

    @Test func theDefaultWatermarkAppliesAndWMNoneIsRefusedUnlessOptional() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo, "logo.png": Self.mark]) {
            $0.watermark.image = "logo.png"
            $0.watermark.position = .nw
            $0.watermark.padding = 0
        }
        let marked = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=200&fm=png")
        #expect(try VipsImage.decode(marked.body).pixel(x: 3, y: 3).prefix(3).allSatisfy { $0 < 15 })
        let off = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=200&fm=png&wm=none")
        #expect(off.status == 400 && off.text.contains("\"parameter\":\"wm\""))
        // The original is served as it is.
        #expect(try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg").body == Self.photo)
        let optional = try LibraryFixture(files: ["a.jpg": Self.photo, "logo.png": Self.mark]) {
            $0.watermark.image = "logo.png"
            $0.watermark.optional = true
        }
        #expect(try RawHTTPClient(port: optional.port).request("GET", "/img/a.jpg?w=200&wm=none").status == 200)
    }

    @Test func parametersThatDoNotFitTheSourceAre400sNamingThem() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo])
        let rect = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?rect=600,0,100,100")
        #expect(rect.status == 400 && rect.text.contains("\"parameter\":\"rect\""), "\(rect.text)")
        let page = try RawHTTPClient(port: f.port).request("GET", "/img/a.jpg?w=10&page=2")
        #expect(page.status == 400 && page.text.contains("\"parameter\":\"page\""), "\(page.text)")
    }
}
