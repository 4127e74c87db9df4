import Dispatch
import Foundation
import HTTP
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct ClientHintsTests {
    static let photo = try! ImageSynthesis.pattern(width: 1200, height: 900, seed: 6).encode(.jpeg)

    /// A size from a hint is bounded like one from the query: `w` times the hinted DPR over
    /// `limits.max_dimension` is a 400 naming `dpr`, never a larger thumbnail.
    @Test func aHintedDPRPastTheLargestDimensionIsRefused() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let client = try RawHTTPClient(port: f.port)
        let refused = try client.request("GET", "/img/p.jpg?w=3000&dpr=auto&fm=png&enlarge=1", headers: ["Sec-CH-DPR: 2"])
        #expect(refused.status == 400 && refused.text.contains("\"parameter\":\"dpr\""), "\(refused.status) \(refused.text)")
        let fits = try client.request("GET", "/img/p.jpg?w=2048&dpr=auto&fm=png&enlarge=1", headers: ["Sec-CH-DPR: 2"])
        #expect(fits.status == 200)
        #expect(try ImageHeader.read(fits.body).width == 4096)
    }

    @Test func dprAutoTakesTheHintAndSharesTheResolvedEntry() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let client = try RawHTTPClient(port: f.port)
        let hinted = try client.request("GET", "/img/p.jpg?w=100&dpr=auto&fm=png", headers: ["Sec-CH-DPR: 2"])
        #expect(try ImageHeader.read(hinted.body).width == 200)
        #expect(hinted.header("Vary") == "Sec-CH-DPR" && hinted.header("Content-DPR") == "2")
        let explicit = try client.request("GET", "/img/p.jpg?w=100&dpr=2&fm=png")
        #expect(explicit.header("X-Cache") == "memory" && explicit.header("ETag") == hinted.header("ETag"), "one entry for one resolved size")
        #expect(explicit.header("Vary") == nil)
        let clamped = try client.request("GET", "/img/p.jpg?w=100&dpr=auto&fm=png", headers: ["Sec-CH-DPR: 9"])
        #expect(try ImageHeader.read(clamped.body).width == 400 && clamped.header("Content-DPR") == "4")
        let none = try client.request("GET", "/img/p.jpg?w=100&dpr=auto&fm=png")
        #expect(try ImageHeader.read(none.body).width == 100 && none.header("Content-DPR") == "1")
        let negotiated = try client.request("GET", "/img/p.jpg?w=100&dpr=auto&fm=auto", headers: ["Sec-CH-DPR: 1.5", "Accept: image/webp"])
        #expect(negotiated.header("Vary") == "Accept, Sec-CH-DPR" && negotiated.header("Content-Type") == "image/webp")
    }

    @Test func wAutoTakesTheWidthHintOrIs400() throws {
        let f = try LibraryFixture(files: ["p.jpg": Self.photo])
        let client = try RawHTTPClient(port: f.port)
        let hinted = try client.request("GET", "/img/p.jpg?w=auto&fm=png", headers: ["Sec-CH-Width: 300"])
        #expect(try ImageHeader.read(hinted.body).width == 300 && hinted.header("Vary") == "Sec-CH-Width")
        let missing = try client.request("GET", "/img/p.jpg?w=auto")
        #expect(missing.status == 400 && missing.text.contains("\"parameter\":\"w\""))
        #expect(try client.request("GET", "/img/p.jpg?w=auto", headers: ["Sec-CH-Width: 99999"]).status == 400)
    }

    @Test func acceptCHIsSentOnTheGalleryAndOnImagesWhenConfigured() throws {
        let off = try LibraryFixture(files: ["p.jpg": Self.photo])
        #expect(try RawHTTPClient(port: off.port).request("GET", "/").header("Accept-CH") == ClientHints.accepted)
        #expect(try RawHTTPClient(port: off.port).request("GET", "/img/p.jpg?w=10").header("Accept-CH") == nil)
        let on = try LibraryFixture(files: ["p.jpg": Self.photo]) { $0.output.clientHints = true }
        for target in ["/img/p.jpg", "/img/p.jpg?w=10", "/img/p.jpg?w=10"] {
            #expect(try RawHTTPClient(port: on.port).request("GET", target).header("Accept-CH") == ClientHints.accepted, "\(target)")
        }
    }
}
