import Dispatch
import Foundation
import HTTP
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// What image servers are asked for and rarely give: placeholders, image info, purge,
/// Client Hints, animation, progressive output, an OpenAPI document. All over HTTP against
/// the real server.
@Suite struct ImageInfoTests {
    static let files: [String: [UInt8]] = {
        func make(_ body: () throws -> [UInt8]) -> [UInt8] { try! body() }
        return [
            "photo.jpg": make { try ImageSynthesis.pattern(width: 640, height: 480, seed: 4).encode(.jpeg) },
            "rotated.jpg": make { try ImageSynthesis.withOrientation(ImageSynthesis.pattern(width: 400, height: 200), 6).encode(.jpeg, strip: false) },
            "alpha.png": make { try ImageSynthesis.pattern(width: 120, height: 80, bands: 4).encode(.png) },
            "anim.gif": make {
                try ImageSynthesis.animation([ImageSynthesis.solid(width: 60, height: 40, color: [255, 0, 0]),
                                              ImageSynthesis.solid(width: 60, height: 40, color: [0, 255, 0]),
                                              ImageSynthesis.solid(width: 60, height: 40, color: [0, 0, 255])]).encode(.gif)
            },
        ]
    }()

    func json(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func listingItemsCarryAPlaceholderAndAColour() throws {
        let f = try LibraryFixture(files: Self.files)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(RawHTTPClient(port: f.port).request("GET", "/v1/images").body)) as? [[String: Any]])
        #expect(items.count == 4)
        for item in items {
            let hash = try #require(Data(base64Encoded: item["placeholder"] as? String ?? ""))
            #expect(hash.count >= 5, "\(item["id"] ?? "")")
            #expect((item["color"] as? String)?.wholeMatch(of: /#[0-9a-f]{6}/) != nil)
        }
        let red = try #require(items.first { $0["id"] as? String == "anim.gif" })
        #expect(red["color"] as? String == "#ff0000", "the first frame's colour")
    }

    @Test func infoGivesTheFactsAnAppNeedsWithAStrongETag() throws {
        let f = try LibraryFixture(files: Self.files)
        let client = try RawHTTPClient(port: f.port)
        let photo = try client.request("GET", "/v1/images/photo.jpg")
        #expect(photo.status == 200 && photo.header("Content-Type") == "application/json")
        let facts = try json(photo)
        #expect(facts["id"] as? String == "photo.jpg" && facts["width"] as? Int == 640 && facts["height"] as? Int == 480)
        #expect(facts["format"] as? String == "jpeg" && facts["alpha"] as? Bool == false && facts["frames"] as? Int == 1)
        #expect(facts["orientation"] as? Int == 1 && facts["bytes"] as? Int == Self.files["photo.jpg"]!.count)
        #expect(facts["url"] as? String == "/img/photo.jpg")
        let original = try client.request("HEAD", "/img/photo.jpg")
        #expect(facts["etag"] as? String == original.header("ETag"))
        let etag = try #require(photo.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        #expect(try client.request("GET", "/v1/images/photo.jpg", headers: ["If-None-Match: \(etag)"]).status == 304)

        let rotated = try json(client.request("GET", "/v1/images/rotated.jpg"))
        #expect(rotated["width"] as? Int == 200 && rotated["height"] as? Int == 400 && rotated["orientation"] as? Int == 6)
        #expect(try json(client.request("GET", "/v1/images/alpha.png"))["alpha"] as? Bool == true)
        #expect(try json(client.request("GET", "/v1/images/anim.gif"))["frames"] as? Int == 3)

        #expect(try client.request("GET", "/v1/images/missing.jpg").status == 404)
        #expect(try client.request("GET", "/v1/images/%zz.jpg").status == 400)
        #expect(try client.request("GET", "/v1/images/../etc/passwd").status == 404)
        #expect(try client.request("POST", "/v1/images/photo.jpg").status == 405)
        let typo = try client.request("GET", "/v1/images/photo.jpg?w=100")
        #expect(typo.status == 400 && typo.text.contains("\"parameter\":\"w\""), "\(typo.text)")
    }

    @Test func remoteInfoComesThroughTheOriginCacheAndItsRules() throws {
        let origin = try TestOrigin()
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
        }
        let url = "http://127.0.0.1:\(origin.port)/photo.jpg"
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let info = try RawHTTPClient(port: f.port).request("GET", "/v1/info?url=\(encoded)")
        #expect(info.status == 200)
        let facts = try json(info)
        #expect(facts["id"] as? String == url && facts["width"] as? Int == 800 && facts["height"] as? Int == 600)
        #expect((facts["url"] as? String)?.hasPrefix("/proxy?url=") == true)
        // One fetch: the proxy route then uses the original the info fetched.
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?url=\(encoded)&w=50").status == 200)
        #expect(origin.count("/photo.jpg") == 1)
        let denied = "http://example.com/a.jpg".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/info?url=\(denied)").status == 403)
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/info").status == 400)
    }
}

@Suite struct PurgeTests {
    static let token = "purge-test-token-0123456789"
    static let photo = try! ImageSynthesis.pattern(width: 500, height: 400, seed: 8).encode(.jpeg)
    static let other = try! ImageSynthesis.pattern(width: 500, height: 400, seed: 9).encode(.jpeg)

    func purge(_ port: Int, _ query: String, token: String? = PurgeTests.token) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: port).request("POST", "/v1/purge?\(query)", headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    @Test func withoutATokenTheEndpointDoesNotExist() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo])
        #expect(try purge(f.port, "path=a.jpg").status == 404)
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/purge?path=a.jpg").status == 404)
    }

    @Test func aMissingOrWrongTokenIs401() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo]) { $0.admin.token = Self.token }
        for token in [nil, "wrong-token-0123456789abcd", Self.token + "x", String(Self.token.dropLast())] {
            let refused = try purge(f.port, "path=a.jpg", token: token)
            #expect(refused.status == 401 && refused.header("WWW-Authenticate") == "Bearer realm=\"thumbd\"", "\(token ?? "none")")
        }
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/purge?path=a.jpg").status == 405)
        #expect(try purge(f.port, "").status == 400)
        #expect(try purge(f.port, "path=a.jpg&url=http://x/a.jpg").status == 400)
    }

    @Test func aPurgeRemovesEveryVariantOfOneSourceFromBothTiersAndNoOther() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo, "a.jpg|x.jpg": Self.other, "b.jpg": Self.other]) { $0.admin.token = Self.token }
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        for w in [50, 60, 70] { #expect(try get("/img/a.jpg?w=\(w)").status == 200) }
        #expect(try get("/img/a.jpg%7Cx.jpg?w=50").status == 200)
        #expect(try get("/img/b.jpg?w=50").status == 200)
        let answer = try purge(f.port, "path=a.jpg")
        #expect(answer.status == 200)
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Int])
        #expect(removed["removed"] == 6, "three variants, each in memory and on disk")
        #expect(try get("/img/a.jpg?w=50").header("X-Cache") == "miss")
        #expect(try get("/img/a.jpg%7Cx.jpg?w=50").header("X-Cache") == "memory", "a path that merely starts like it is another source")
        #expect(try get("/img/b.jpg?w=50").header("X-Cache") == "memory")
    }

    @Test func aPurgeRacingFiftyReadersServesOnlyWholeVariants() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo]) { $0.admin.token = Self.token }
        let port = f.port
        let reference = try RawHTTPClient(port: port).request("GET", "/img/a.jpg?w=120").body
        let bad = Atomic<Int>(0), served = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<50 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? RawHTTPClient(port: port, timeout: 30) else { return }
                while !stop.load(ordering: .relaxed) {
                    guard let response = try? client.request("GET", "/img/a.jpg?w=120") else { bad.add(1, ordering: .relaxed); return }
                    if response.status != 200 || response.body != reference { bad.add(1, ordering: .relaxed) }
                    served.add(1, ordering: .relaxed)
                }
            }.start()
        }
        #expect(eventually { served.load(ordering: .relaxed) >= 200 })
        for _ in 0..<3 { #expect(try purge(port, "path=a.jpg").status == 200) }
        #expect(eventually { served.load(ordering: .relaxed) >= 600 })
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(bad.load(ordering: .relaxed) == 0)
    }

    @Test func aRemotePurgeForgetsTheOriginalToo() throws {
        let origin = try TestOrigin()
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
            config.admin.token = Self.token
        }
        let url = "http://127.0.0.1:\(origin.port)/photo.jpg"
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?url=\(encoded)&w=60").status == 200)
        #expect(origin.count("/photo.jpg") == 1)
        let answer = try purge(f.port, "url=\(encoded)")
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Int])
        #expect(removed["removed"] == 4, "the variant and the original, each in both tiers")
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?url=\(encoded)&w=60").header("X-Cache") == "miss")
        #expect(origin.count("/photo.jpg") == 2, "fetched again")
    }
}

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

@Suite struct OpenAPIDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theServerServesTheDocumentInTheRepository() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(OpenAPIDocument.yaml + "\n" == file || OpenAPIDocument.yaml == file,
                "docs/openapi.yaml changed: run scripts/embed-openapi.sh")
        let f = try LibraryFixture()
        let served = try RawHTTPClient(port: f.port).request("GET", "/openapi.yaml")
        #expect(served.status == 200 && served.header("Content-Type") == "application/yaml")
        #expect(served.text.hasPrefix("openapi: 3.1"))
    }
}
