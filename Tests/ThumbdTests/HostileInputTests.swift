import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// Hostile files and parameters. Every image it decodes (sources, watermarks,
/// pages) passes the same limits from its header before any pixel is decoded, and a vector
/// page is drawn at the scale the output needs or refused.
@Suite(.serialized) struct HostileInputTests {
    static let photo = try! ImageSynthesis.pattern(width: 640, height: 480, seed: 9).encode(.jpeg)
    static let mark = try! ImageSynthesis.pattern(width: 200, height: 100, bands: 4, seed: 2).encode(.png)

    static let fixture: LibraryFixture = try! LibraryFixture(files: [
        "photo.jpg": photo,
        "mark.png": mark,
        "bomb-30000.png": TestBytes.pngDeclaring(width: 30000, height: 30000),
        "bomb-8000.png": TestBytes.pngDeclaring(width: 8000, height: 8000),
        "bomb-sof.jpg": TestBytes.jpeg(try! ImageSynthesis.pattern(width: 64, height: 64).encode(.jpeg), claiming: 65000, 65000),
    ])

    func get(_ target: String) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: Self.fixture.port, timeout: 30).request("GET", target)
    }

    var reserved: Int { Self.fixture.service.app.thumbnails.memory.usage.reservedTotal }

    @Test(arguments: ["bomb-30000.png", "bomb-8000.png", "bomb-sof.jpg"])
    func aWatermarkOverTheSourceLimitsIsRefusedBeforeDecode(_ bomb: String) throws {
        let before = reserved
        let response = try get("/img/photo.jpg?w=300&wm=\(bomb)")
        #expect(response.status == 422, "\(bomb): \(response.status) \(response.text)")
        #expect(response.text.contains("over the limit"), "\(response.text)")
        // Nothing was reserved, so nothing was decoded.
        #expect(reserved == before)
        // The same watermark within the limits is drawn.
        #expect(try get("/img/photo.jpg?w=300&wm=mark.png").status == 200)
    }

    @Test func thePageAskedForIsTheOneChecked() throws {
        let f = try LibraryFixture(files: ["pages.tif": Self.twoPages]) { $0.limits.maxSourcePixels = 100 * 100 }
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        // Page 1 is 100 x 100, within the limit; page 2 is 200 x 200, over it.
        #expect(try get("/img/pages.tif?w=50&fm=png").status == 200)
        let second = try get("/img/pages.tif?w=50&page=2&fm=png")
        #expect(second.status == 422 && second.text.contains("200x200"), "\(second.text)")
        let past = try get("/img/pages.tif?w=50&page=3")
        #expect(past.status == 400 && past.text.contains("\"parameter\":\"page\""), "\(past.text)")
    }

    /// Two pages of different sizes: 100 x 100, then 200 x 200.
    static let twoPages = TestBytes.tiff(pages: [(100, 100, [0, 255, 0]), (200, 200, [255, 0, 0])])
}

/// Work nobody waits for any more is stopped while it runs, and its worker freed.
@Suite struct RunawayTransformTests {
    /// 195 bytes: a blur of 100000 px over the whole drawing, asked at 4096 px, takes a
    /// libvips thread 20 s or more.
    static let blurBomb = Array("""
        <svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><filter id="b"><feGaussianBlur \
        stdDeviation="100000"/></filter><rect width="100" height="100" fill="red" filter="url(#b)"/></svg>
        """.utf8)

    /// A vector page drawn by a renderer process (the blur bomb), and a raster transform: a
    /// small picture enlarged to 4096 px and blurred with the largest sigma keeps libvips busy
    /// for seconds, and is stopped as it computes.
    @Test(arguments: ["/img/bomb.svg?w=4096&fm=png", "/img/small.png?w=4096&enlarge=1&blur=100&fm=png"])
    func aRunawayTransformIsCutWhenItsClientLeavesAndTheNextMissIsServed(_ runaway: String) throws {
        let f = try LibraryFixture(files: ["bomb.svg": Self.blurBomb,
                                           "small.png": try ImageSynthesis.pattern(width: 300, height: 200).encode(.png)]) {
            $0.limits.workers = 1
        }
        let thumbnails = f.service.app.thumbnails
        do {
            let client = try RawHTTPClient(port: f.port)
            try client.send(RawHTTPClient.requestText("GET", runaway))
            #expect(eventually { thumbnails.pool.running == 1 })
            settle(milliseconds: 300)  // well into the work
        }  // the client goes away: its connection closes
        // The one worker is freed by the stop, long before the work would have ended.
        #expect(eventually(timeout: 15) { thumbnails.transformsCancelled.count == 1 && thumbnails.pool.running == 0 },
                "cancelled \(thumbnails.transformsCancelled.count), running \(thumbnails.pool.running)")
        let next = try RawHTTPClient(port: f.port).request("GET", "/img/small.png?w=123")
        #expect(next.status == 200 && next.header("X-Cache") == "miss")
    }
}
