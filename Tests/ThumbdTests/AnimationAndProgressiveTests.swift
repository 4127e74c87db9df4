import Dispatch
import Foundation
import HTTP
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct AnimationAndProgressiveTests {
    static let gif = try! ImageSynthesis.animation([ImageSynthesis.pattern(width: 300, height: 200, seed: 1),
                                                    ImageSynthesis.pattern(width: 300, height: 200, seed: 2),
                                                    ImageSynthesis.pattern(width: 300, height: 200, seed: 3)]).encode(.gif)
    static let photo = try! ImageSynthesis.pattern(width: 800, height: 600, seed: 7).encode(.jpeg)

    @Test func animKeepsEveryFrameForWebP() throws {
        let f = try LibraryFixture(files: ["a.gif": Self.gif])
        let client = try RawHTTPClient(port: f.port)
        let animated = try client.request("GET", "/img/a.gif?anim=1&fm=webp&w=150")
        #expect(animated.status == 200 && animated.header("Content-Type") == "image/webp")
        let header = try ImageHeader.read(animated.body)
        #expect(header.pages == 3 && header.width == 150 && header.height == 100)
        let cropped = try ImageHeader.read(client.request("GET", "/img/a.gif?anim=1&fm=webp&w=80&h=80&fit=cover").body)
        #expect(cropped.pages == 3 && cropped.width == 80 && cropped.height == 80)
        let still = try ImageHeader.read(client.request("GET", "/img/a.gif?fm=webp&w=150").body)
        #expect(still.pages == 1)
        // anim means nothing for a format without animation: normalized away, one entry.
        let png = try client.request("GET", "/img/a.gif?anim=1&fm=png&w=150")
        #expect(png.header("ETag") == (try client.request("GET", "/img/a.gif?fm=png&w=150")).header("ETag"))
        #expect(try client.request("GET", "/img/a.gif?anim=2").status == 400)
    }

    @Test func framesCountAgainstTheLimits() throws {
        let capped = try LibraryFixture(files: ["a.gif": Self.gif]) { $0.limits.maxFrames = 2 }
        #expect(try RawHTTPClient(port: capped.port).request("GET", "/img/a.gif?anim=1&fm=webp&w=50").status == 422)
        #expect(try RawHTTPClient(port: capped.port).request("GET", "/img/a.gif?fm=webp&w=50").status == 200)
        // Two frames' worth of pixels: one frame passes, all three do not.
        let pixels = try LibraryFixture(files: ["a.gif": Self.gif]) { $0.limits.maxSourcePixels = 300 * 200 * 2 }
        #expect(try RawHTTPClient(port: pixels.port).request("GET", "/img/a.gif?anim=1&fm=webp&w=50").status == 422)
        #expect(try RawHTTPClient(port: pixels.port).request("GET", "/img/a.gif?fm=webp&w=50").status == 200)
    }

    /// SOF2 (FF C2) starts a progressive JPEG's frame; SOF0 (FF C0) a baseline one. A PNG's
    /// IHDR ends with its interlace method (byte 28).
    static func isProgressiveJPEG(_ bytes: [UInt8]) -> Bool {
        zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 }
    }

    @Test func prMakesProgressiveJPEGAndInterlacedPNG() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let client = try RawHTTPClient(port: f.port)
        let progressive = try client.request("GET", "/img/p.jpg?w=200&pr=1").body
        let baseline = try client.request("GET", "/img/p.jpg?w=200").body
        #expect(Self.isProgressiveJPEG(progressive) && !Self.isProgressiveJPEG(baseline))
        #expect(try client.request("GET", "/img/p.jpg?w=200&pr=0").body == baseline)
        #expect(try client.request("GET", "/img/p.jpg?w=200&fm=png&pr=1").body[28] == 1)
        #expect(try client.request("GET", "/img/p.jpg?w=200&fm=png").body[28] == 0)
        let byDefault = try LibraryFixture(files: ["p.jpg": Self.photo]) { $0.output.progressive = true }
        let defaulted = try RawHTTPClient(port: byDefault.port).request("GET", "/img/p.jpg?w=200").body
        #expect(Self.isProgressiveJPEG(defaulted))
        #expect(!Self.isProgressiveJPEG(try RawHTTPClient(port: byDefault.port).request("GET", "/img/p.jpg?w=200&pr=0").body))
    }
}

extension AnimationAndProgressiveTests {
    /// fm=auto decides anim and pr by the negotiated format, not by the source's default one.
    @Test func negotiatedFormatsKeepAnimAndPrWhereTheyApply() throws {
        let webp = try ImageSynthesis.pattern(width: 800, height: 600, seed: 9).encode(.webp)
        let f = try LibraryFixture(files: ["a.gif": Self.gif, "w.webp": webp])
        let client = try RawHTTPClient(port: f.port)
        let oldBrowser = ["Accept: image/jpeg,image/png,*/*"]
        // A client without WebP gets one frame, not every frame stacked into one tall image.
        let still = try client.request("GET", "/img/a.gif?fm=auto&anim=1&w=150", headers: oldBrowser)
        let stillHeader = try ImageHeader.read(still.body)
        #expect(still.status == 200 && stillHeader.pages == 1 && stillHeader.width == 150 && stillHeader.height == 100)
        let animated = try ImageHeader.read(client.request("GET", "/img/a.gif?fm=auto&anim=1&w=150", headers: ["Accept: image/webp"]).body)
        #expect(animated.pages == 3 && animated.height == 100)
        // A WebP source answered in JPEG keeps pr=1.
        let jpeg = try client.request("GET", "/img/w.webp?fm=auto&pr=1&w=200", headers: oldBrowser)
        #expect(jpeg.header("Content-Type") == "image/jpeg" && Self.isProgressiveJPEG(jpeg.body))
        let baseline = try client.request("GET", "/img/w.webp?fm=auto&w=200", headers: oldBrowser)
        #expect(baseline.header("Content-Type") == "image/jpeg" && !Self.isProgressiveJPEG(baseline.body))
    }
}
