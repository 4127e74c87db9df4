import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

/// The Lorem Picsum-compatible routes against a running server and a library of generated
/// images: redirects and their targets, the images and their fields, sizes, suffixes,
/// effects, bad forms, signing, and thumbd's own routes winning.
@Suite struct PicsumRouteTests {
    /// Noise: a picture with detail everywhere, so a blur shows.
    static let noise: [UInt8] = {
        var generator = SplitMix64(seed: 24)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(640 * 480 * 3)
        while pixels.count < 640 * 480 * 3 { pixels.append(UInt8(truncatingIfNeeded: generator.next() >> 7)) }
        return try! ImageSynthesis.image(width: 640, height: 480, bands: 3, pixels: pixels).encode(.jpeg, quality: 90)
    }()

    static let files: [String: [UInt8]] = [
        "photos/noise.jpg": noise,
        "photos/tall.png": try! ImageSynthesis.pattern(width: 300, height: 500, seed: 3).encode(.png),
        "web/wide.webp": try! ImageSynthesis.pattern(width: 800, height: 200, seed: 5).encode(.webp),
    ]

    static func id(_ path: String) -> Int { PicsumCatalog.preferredID(path: path) }

    func get(_ f: LibraryFixture, _ target: String, headers: [String] = []) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: f.port).request("GET", target, headers: headers)
    }

    /// Width and height of an encoded image, and its pixels as RGBA.
    func decoded(_ bytes: [UInt8]) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let header = try ImageHeader.read(bytes)
        let preview = try ImagePreview.make(bytes, maxSide: max(header.width, header.height))
        return (header.width, header.height, preview.rgba)
    }

    /// The mean difference between horizontal neighbours: lower is smoother.
    func roughness(_ image: (width: Int, height: Int, rgba: [UInt8])) -> Double {
        var total = 0, count = 0
        for y in 0..<image.height {
            for x in 0..<(image.width - 1) {
                let i = (y * image.width + x) * 4
                total += abs(Int(image.rgba[i]) - Int(image.rgba[i + 4]))
                count += 1
            }
        }
        return Double(total) / Double(count)
    }

    func expectProblem(_ response: RawHTTPClient.Response, _ status: Int, parameter: String? = nil, _ note: String) {
        #expect(response.status == status, "\(note): \(response.status) \(response.text)")
        #expect(response.header("Content-Type") == "application/problem+json", "\(note)")
        #expect(response.header("Access-Control-Allow-Origin") == "*", "\(note)")
        if let parameter { #expect(response.text.contains("\"parameter\":\"\(parameter)\""), "\(note): \(response.text)") }
    }

    @Test func randomFormsRedirectToTheIdURLOfTheDrawnImageWithTheirOptions() throws {
        let f = try LibraryFixture(files: Self.files)
        let ids = Set(Self.files.keys.map(Self.id))
        #expect(ids.count == 3)
        let square = try get(f, "/200")
        #expect(square.status == 302 && square.body.isEmpty)
        #expect(square.header("Cache-Control") == "no-store")
        #expect(square.header("Access-Control-Allow-Origin") == "*")
        #expect(square.header("Access-Control-Expose-Headers") == "Picsum-ID, Link")
        let location = try #require(square.header("Location"))
        let drawn = try #require(location.split(separator: "/").dropFirst().first.flatMap { Int($0) })
        #expect(ids.contains(drawn) && location == "/id/\(drawn)/200/200.jpg", "\(location)")
        // The target is the image itself.
        let image = try get(f, location)
        #expect(image.status == 200 && image.header("Picsum-ID") == String(drawn))

        // Options carry over in Picsum's order and spelling; random is dropped.
        let options = try #require(try get(f, "/300/150.webp?random=7&grayscale&blur").header("Location"))
        #expect(options.hasSuffix("/300/150.webp?blur=5&grayscale"), "\(options)")
        #expect(try get(f, "/300/150.WEBP?blur=3").header("Location")?.hasSuffix("/300/150.webp?blur=3") == true)
        #expect(try get(f, "/120?random=1").header("Location")?.hasSuffix("/120/120.jpg") == true)
        // Every image is drawn sooner or later.
        var seen: Set<String> = []
        for _ in 0..<200 where seen.count < 3 {
            if let target = try get(f, "/100").header("Location") { seen.insert(String(target.split(separator: "/")[1])) }
        }
        #expect(seen == Set(ids.map(String.init)))

        // The deprecated ?image= names the image; 0 is replaced by the image's own side.
        let tall = Self.id("photos/tall.png")
        #expect(try get(f, "/200/300?image=\(tall)").header("Location") == "/id/\(tall)/200/300.jpg")
        #expect(try get(f, "/0/0.webp?image=\(tall)&grayscale").header("Location") == "/id/\(tall)/300/500.webp?grayscale")
        #expect(try get(f, "/0?image=\(tall)").header("Location") == "/id/\(tall)/300/500.jpg")
    }

    /// Ids are a function of the path alone, the same in every process on every machine:
    /// literal numbers, computed once (FNV-1a of the path, below a million) and written here,
    /// checked in two separate `thumbd serve` processes over the same library.
    @Test func idsAreTheSameLiteralNumbersInTwoProcesses() throws {
        let expected = ["photos/noise.jpg": 92416, "photos/tall.png": 635031, "web/wide.webp": 945383]
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-picsum-ids-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, bytes) in Self.files { try LibraryFixture.write(path, bytes, under: root) }
        let servers = try (0..<2).map { n in
            try ShutdownTests.Server(library: root.appendingPathComponent("library").path,
                                     cache: root.appendingPathComponent("cache-\(n)").path)
        }
        defer { for server in servers { server.process.terminate() } }
        for server in servers {
            for (path, id) in expected {
                let info = try RawHTTPClient(port: server.port).request("GET", "/id/\(id)/info")
                #expect(info.status == 200 && info.text.contains("\"id\":\"\(id)\""), "\(path) in process \(server.process.processIdentifier)")
                #expect(info.text.contains(path.replacingOccurrences(of: "/", with: "\\/")) || info.text.contains(path), "\(info.text)")
            }
            // A seed picks by the same stable hash: "alpha" names web/wide.webp here.
            let seeded = try RawHTTPClient(port: server.port).request("GET", "/seed/alpha/200")
            #expect(seeded.header("Location")?.hasPrefix("/id/945383/") == true, "\(seeded.header("Location") ?? "none")")
        }
    }

    @Test func seedsPickTheSameImageAcrossARestart() throws {
        let f = try LibraryFixture(files: Self.files)
        let seeds = ["alpha", "beta", "gamma", "delta", "epsilon", "with%20space"]
        let before = try seeds.map { try get(f, "/seed/\($0)/200/300").header("Location") }
        #expect(before.allSatisfy { $0 != nil })
        #expect(try seeds.map { try get(f, "/seed/\($0)/200/300").header("Location") } == before)
        #expect(try get(f, "/seed/alpha/250.webp?grayscale").header("Location")?.hasSuffix("/250/250.webp?grayscale") == true)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(get(f, "/seed/alpha/info").body)) as? [String: Any])
        #expect(before[0]?.hasPrefix("/id/\(info["id"] as? String ?? "?")/") == true)

        // Another process on the same library: the same picks (and the same ids).
        let config = f.service.config
        f.service.stop()
        let restarted = try ThumbdService(config: config)
        defer { restarted.stop() }
        let after = try seeds.map { try RawHTTPClient(port: restarted.port).request("GET", "/seed/\($0)/200/300").header("Location") }
        #expect(after == before)
    }

    @Test func anIdAnswersTheImageCroppedToExactlyTheBoxWithPicsumsFields() throws {
        let f = try LibraryFixture(files: Self.files)
        let noise = Self.id("photos/noise.jpg")
        let first = try get(f, "/id/\(noise)/200/300")
        #expect(first.status == 200 && first.header("Content-Type") == "image/jpeg")
        #expect(try decoded(first.body).width == 200 && decoded(first.body).height == 300)
        #expect(first.header("Picsum-ID") == String(noise))
        #expect(first.header("Content-Disposition") == "inline; filename=\"\(noise)-200x300.jpg\"")
        #expect(first.header("Access-Control-Allow-Origin") == "*")
        #expect(first.header("Access-Control-Expose-Headers") == "Picsum-ID, Link")
        #expect(first.header("Cache-Control") == "public, max-age=86400")
        #expect(first.header("Accept-Ranges") == "bytes" && first.header("Last-Modified") != nil)
        #expect(first.header("X-Cache") == "miss")
        // Progressive, as Picsum's JPEGs are (a SOF2 marker).
        #expect(zip(first.body, first.body.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 })
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))

        let again = try get(f, "/id/\(noise)/200/300.jpg")
        #expect(again.header("X-Cache") == "memory" && again.body == first.body && again.header("ETag") == etag)
        #expect(again.header("Picsum-ID") == String(noise))
        let notModified = try get(f, "/id/\(noise)/200/300", headers: ["If-None-Match: \(etag)"])
        #expect(notModified.status == 304 && notModified.header("Picsum-ID") == String(noise))
        let part = try get(f, "/id/\(noise)/200/300", headers: ["Range: bytes=10-99", "If-Range: \(etag)"])
        #expect(part.status == 206 && part.body == Array(first.body[10...99]))
        #expect(part.header("Content-Range") == "bytes 10-99/\(first.body.count)")
        let head = try RawHTTPClient(port: f.port).request("HEAD", "/id/\(noise)/200/300")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(first.body.count))
        // The same thumbnail /img makes with the same options: one cache entry, one ETag.
        let img = try get(f, "/img/photos/noise.jpg?w=200&h=300&fit=cover&enlarge=1&fm=jpeg&pr=1")
        #expect(img.header("X-Cache") == "memory" && img.header("ETag") == etag)

        // A square; enlarged past the source; 0 is the source's side; WebP.
        let square = try get(f, "/id/\(noise)/150")
        #expect(try decoded(square.body).width == 150 && decoded(square.body).height == 150)
        #expect(square.header("Content-Disposition") == "inline; filename=\"\(noise)-150x150.jpg\"")
        let large = try get(f, "/id/\(noise)/1000/900")
        #expect(try decoded(large.body).width == 1000 && decoded(large.body).height == 900)
        let original = try get(f, "/id/\(noise)/0/0")
        #expect(try decoded(original.body).width == 640 && decoded(original.body).height == 480)
        #expect(original.header("Content-Disposition") == "inline; filename=\"\(noise)-640x480.jpg\"")
        let half = try get(f, "/id/\(noise)/0/100")
        #expect(try decoded(half.body).width == 640 && decoded(half.body).height == 100)
        let webp = try get(f, "/id/\(Self.id("web/wide.webp"))/120/80.webp?grayscale&blur=2")
        #expect(webp.header("Content-Type") == "image/webp" && webp.body.starts(with: Array("RIFF".utf8)))
        #expect(webp.header("Content-Disposition") == "inline; filename=\"\(Self.id("web/wide.webp"))-120x80-blur_2-grayscale.webp\"")
        #expect(try decoded(webp.body).width == 120)
    }

    @Test func grayscaleIsGreyAndBlurIsSmoother() throws {
        let f = try LibraryFixture(files: Self.files)
        let noise = Self.id("photos/noise.jpg")
        let sharp = try decoded(get(f, "/id/\(noise)/300/200").body)
        let grey = try decoded(get(f, "/id/\(noise)/300/200?grayscale").body)
        var colourful = 0
        for i in stride(from: 0, to: grey.rgba.count, by: 4) {
            if grey.rgba[i] != grey.rgba[i + 1] || grey.rgba[i] != grey.rgba[i + 2] { colourful += 1 }
        }
        #expect(colourful == 0, "pixels whose channels differ: \(colourful)")
        #expect(sharp.rgba.enumerated().contains { $0.offset % 4 == 0 && $0.element != sharp.rgba[$0.offset + 1] })

        let blurred = try get(f, "/id/\(noise)/300/200?blur=4")
        #expect(blurred.status == 200)
        let soft = try decoded(blurred.body)
        #expect(soft.rgba != sharp.rgba)
        #expect(roughness(soft) < roughness(sharp) / 3, "blurred \(roughness(soft)), sharp \(roughness(sharp))")
        let blurrier = try decoded(get(f, "/id/\(noise)/300/200?blur=10").body)
        #expect(roughness(blurrier) < roughness(soft))
        // ?blur alone is 5, as Picsum reads it.
        let plain = try get(f, "/id/\(noise)/300/200?blur")
        #expect(plain.header("ETag") == (try get(f, "/id/\(noise)/300/200?blur=5").header("ETag")))
        #expect(plain.header("Content-Disposition")?.contains("-blur_5.jpg") == true)
    }

    @Test(arguments: [
        ("/id/x/10/10", 400, "id"), ("/10/0x", 400, "height"), ("/6000", 400, "size"), ("/10/6000", 400, "height"),
        ("/id/ID/5001/10", 400, "width"), ("/200.gif", 400, "extension"), ("/id/ID/20/20.png", 400, "extension"),
        ("/200?blur=11", 400, "blur"), ("/200?blur=0", 400, "blur"), ("/200?image=abc", 400, "image"),
        ("/id/12345678/200", 404, nil), ("/id/12345678/info", 404, nil), ("/id/ID", 404, nil), ("/id/ID/1/2/3", 404, nil),
        ("/seed/a/1/2/3", 404, nil), ("/10/20/30", 404, nil), ("/photos", 404, nil),
    ] as [(String, Int, String?)])
    func badFormsAreProblems(_ target: String, _ status: Int, _ parameter: String?) throws {
        let f = try LibraryFixture(files: Self.files)
        let response = try get(f, target.replacingOccurrences(of: "ID", with: String(Self.id("photos/noise.jpg"))))
        if parameter == nil && !target.contains("12345678") {
            #expect(response.status == 404 && response.header("Content-Type") == "application/problem+json", "\(target)")
        } else {
            expectProblem(response, status, parameter: parameter, target)
        }
    }

    @Test func theLargestSideIsMaxDimensionWhenThatIsSmaller() throws {
        let f = try LibraryFixture(files: Self.files) { $0.limits.maxDimension = 1000 }
        expectProblem(try get(f, "/1001"), 400, parameter: "size", "over max_dimension")
        #expect(try get(f, "/1000").status == 302)
        // 0 is the source's side, whatever the limit.
        let noise = Self.id("photos/noise.jpg")
        #expect(try get(f, "/id/\(noise)/0/0").status == 200)
        #expect(try get(f, "/blur").status == 404)
    }

    @Test func thumbdsOwnRoutesWinAndPicsumCanBeTurnedOff() throws {
        var files = Self.files
        files["health"] = Self.noise
        files["200"] = Self.noise
        files["v2/list"] = Self.noise
        let f = try LibraryFixture(files: files)
        let health = try get(f, "/health")
        #expect(health.status == 200 && health.text.contains("\"status\":\"ok\""))
        #expect(try get(f, "/v1/images").status == 200)
        #expect(try get(f, "/200").status == 302)
        let list = try get(f, "/v2/list")
        #expect(list.status == 200 && list.header("Content-Type") == "application/json")
        #expect(try RawHTTPClient(port: f.port).request("POST", "/200").status == 405)
        // The routes are labelled apart in the metrics.
        let metrics = try get(f, "/metrics").text
        #expect(metrics.contains("route=\"picsum_redirect\"") && metrics.contains("route=\"picsum_list\""))

        let off = try LibraryFixture(files: files) { $0.picsum.enabled = false }
        for target in ["/200", "/200/300", "/id/1/200/300", "/seed/a/200", "/v2/list", "/id/1/info"] {
            let response = try get(off, target)
            #expect(response.status == 404 && response.header("Content-Type") == "application/problem+json", "\(target)")
        }
        #expect(try get(off, "/health").status == 200)
    }

    @Test func withSigningTheImagesAndRedirectsNeedASignature() throws {
        let key = "picsum-signing-key-12345"
        let f = try LibraryFixture(files: Self.files) { $0.security.key = key }
        let signer = URLSigner(key: key)
        let noise = Self.id("photos/noise.jpg")
        #expect(try get(f, "/200").status == 403)
        #expect(try get(f, "/id/\(noise)/200/200").status == 403)
        #expect(try get(f, "/seed/a/200?s=00000000000000000000000000000000").status == 403)
        let redirect = try get(f, signer.sign("/200/100?grayscale"))
        #expect(redirect.status == 302)
        let location = try #require(redirect.header("Location"))
        #expect(location.contains("?grayscale&s="), "\(location)")
        #expect(try get(f, location).status == 200)
        #expect(try get(f, signer.sign("/id/\(noise)/200/200")).status == 200)
        // The listing needs none, and hands out signed URLs.
        let list = try get(f, "/v2/list")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]])
        let download = try #require(items.first?["download_url"] as? String)
        let url = try #require(items.first?["url"] as? String)
        #expect(download.contains("?s=") && url.contains("?s="))
        #expect(try get(f, String(download.dropFirst("http://test".count))).status == 200)
        #expect(try get(f, String(url.dropFirst("http://test".count))).status == 200)
    }
}
