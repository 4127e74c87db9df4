import Dispatch
import Foundation
import HTTP
import Imaging
import ImagingTestSupport
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

/// Real images, made by libvips, transformed by the real server over HTTP.
@Suite struct ThumbnailsTests {
    /// Sources, made once.
    static let sources: [String: [UInt8]] = {
        func make(_ body: () throws -> [UInt8]) -> [UInt8] { try! body() }
        let photo = make { try ImageSynthesis.pattern(width: 1600, height: 1000).encode(.jpeg, quality: 90) }
        var noise = LibraryFixture.fakeJPEG(5000)  // JPEG signature, garbage after it
        noise[3] = 0xDB
        return [
            "photo.jpg": photo,
            "small.png": make { try ImageSynthesis.pattern(width: 200, height: 100).encode(.png) },
            "alpha.png": make { try ImageSynthesis.pattern(width: 400, height: 400, bands: 4).encode(.png) },
            "rotated.jpg": make { try ImageSynthesis.withOrientation(ImageSynthesis.pattern(width: 800, height: 400), 6).encode(.jpeg, strip: false) },
            "cmyk.jpg": make { try ImageSynthesis.asCMYK(ImageSynthesis.solid(width: 64, height: 64, color: [0, 255, 255, 0])).encode(.jpeg, strip: false) },
            "deep.png": make { try ImageSynthesis.as16Bit(ImageSynthesis.pattern(width: 300, height: 200)).encode(.png) },
            "anim.gif": make {
                try ImageSynthesis.animation([ImageSynthesis.solid(width: 40, height: 30, color: [255, 0, 0]),
                                              ImageSynthesis.solid(width: 40, height: 30, color: [0, 0, 255])]).encode(.gif)
            },
            "tagged.jpg": make {
                try ImageSynthesis.withOrientation(ImageSynthesis.withProfileAndXMP(ImageSynthesis.pattern(width: 300, height: 200),
                                                                                   xmp: "<x:xmpmeta>thumbd-secret</x:xmpmeta>"), 1)
                    .encode(.jpeg, strip: false)
            },
            "truncated.jpg": Array(photo.prefix(photo.count / 3)),
            "garbage.jpg": noise,
            "huge.png": TestBytes.pngDeclaring(width: 60000, height: 60000),
        ]
    }()

    static let fixture: LibraryFixture = try! LibraryFixture(files: sources) { config in
        config.presets = ["square": "w=120&h=120&fit=cover"]
    }

    func get(_ target: String, headers: [String] = []) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: Self.fixture.port, timeout: 30).request("GET", target, headers: headers)
    }

    func dimensions(_ response: RawHTTPClient.Response) throws -> [Int] {
        let header = try ImageHeader.read(response.body)
        return [header.width, header.height]
    }

    @Test(arguments: [
        ("photo.jpg?w=300", [300, 188]),
        ("photo.jpg?h=100", [160, 100]),
        ("photo.jpg?w=300&h=300", [300, 188]),
        ("photo.jpg?w=300&h=300&fit=contain", [300, 188]),
        ("photo.jpg?w=300&h=300&fit=cover", [300, 300]),
        ("photo.jpg?w=300&h=300&fit=fill", [300, 300]),
        ("photo.jpg?w=150&h=150&fit=cover&dpr=2", [300, 300]),
        ("photo.jpg?h=100&dpr=1.5", [240, 150]),
        ("photo.jpg?w=300&h=200&fit=cover&crop=left", [300, 200]),
        ("photo.jpg?w=300&h=200&fit=cover&crop=bottom", [300, 200]),
        ("photo.jpg?w=300&h=200&fit=cover&crop=entropy", [300, 200]),
        ("photo.jpg?w=300&h=200&fit=cover&crop=attention", [300, 200]),
        ("photo.jpg?fm=webp", [1600, 1000]),
        ("photo.jpg?w=3000", [1600, 1000]),
        ("photo.jpg?w=3000&enlarge=1", [3000, 1875]),
        ("small.png?w=400", [200, 100]),
        ("small.png?w=400&enlarge=1", [400, 200]),
        ("small.png?w=200&dpr=2&enlarge=1", [400, 200]),
        ("small.png?w=400&h=400&fit=cover", [100, 100]),
        ("small.png?w=400&h=400&fit=cover&enlarge=1", [400, 400]),
        ("small.png?w=400&h=400&fit=fill&enlarge=1", [400, 400]),
        ("small.png?w=400&h=400&fit=contain&enlarge=1", [400, 200]),
        ("small.png?p=square", [100, 100]),
        ("photo.jpg?p=square", [120, 120]),
        ("photo.jpg?p=square&w=60", [60, 120]),
    ])
    func outputDimensions(_ target: String, _ expected: [Int]) throws {
        let response = try get("/img/" + target)
        #expect(response.status == 200, "\(target): \(response.text)")
        #expect(try dimensions(response) == expected, "\(target)")
    }

    @Test(arguments: [(OutputFormat.jpeg, ImageFormat.jpeg), (.png, .png), (.webp, .webp), (.avif, .avif)])
    func formats(_ format: OutputFormat, _ sniffed: ImageFormat) throws {
        let response = try get("/img/photo.jpg?w=120&fm=\(format.rawValue)")
        #expect(response.header("Content-Type") == format.mediaType)
        #expect(ImageFormat.sniff(response.body) == sniffed)
        #expect(response.header("Vary") == nil)
    }

    @Test func theSourceFormatIsKeptOrGifBecomesPNG() throws {
        #expect(try get("/img/photo.jpg?w=100").header("Content-Type") == "image/jpeg")
        #expect(try get("/img/small.png?w=100").header("Content-Type") == "image/png")
        #expect(try get("/img/anim.gif?w=20").header("Content-Type") == "image/png")
    }

    @Test(arguments: [
        ("image/avif,image/webp,image/apng,image/*,*/*;q=0.8", "photo.jpg", "image/avif"),
        ("image/webp,*/*", "photo.jpg", "image/webp"),
        ("image/avif;q=0,image/webp;q=0.9", "photo.jpg", "image/webp"),
        ("*/*", "photo.jpg", "image/jpeg"),
        ("*/*", "alpha.png", "image/png"),
        ("", "photo.jpg", "image/jpeg"),
    ])
    func autoFormatFollowsAccept(_ accept: String, _ file: String, _ expected: String) throws {
        let response = try get("/img/\(file)?w=64&fm=auto", headers: accept.isEmpty ? [] : ["Accept: \(accept)"])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == expected)
        #expect(response.header("Vary") == "Accept")
    }

    /// fm=webp and an fm=auto that negotiated WebP share one cache entry, but only the
    /// negotiated answer varies on Accept, from memory as when it was made.
    @Test func aSharedVariantVariesOnAcceptOnlyWhenNegotiated() throws {
        let explicit = "/img/photo.jpg?w=72&fm=webp", auto = "/img/photo.jpg?w=72&fm=auto"
        let made = try get(explicit)
        let negotiated = try get(auto, headers: ["Accept: image/webp"])
        let again = try get(explicit)
        #expect(negotiated.header("X-Cache") == "memory" && again.header("X-Cache") == "memory")
        #expect(made.header("Vary") == nil && again.header("Vary") == nil)
        #expect(negotiated.header("Vary") == "Accept")
        #expect(negotiated.body == made.body && negotiated.header("ETag") == made.header("ETag"))
    }

    @Test func exifOrientationIsApplied() throws {
        #expect(try dimensions(get("/img/rotated.jpg?w=300&h=300")) == [150, 300])
    }

    @Test func cmykBecomesSRGB() throws {
        let response = try get("/img/cmyk.jpg?w=32")
        let image = try VipsImage.decode(response.body)
        #expect(image.bands == 3)
        let pixel = try image.pixel(x: 16, y: 16)
        #expect(pixel[0] > 200 && pixel[1] < 80 && pixel[2] < 80, "CMYK (0,255,255,0) is red, got \(pixel)")
    }

    @Test func alphaOnJPEGIsFlattenedOnWhite() throws {
        let response = try get("/img/alpha.png?w=100&fm=jpeg")
        let image = try VipsImage.decode(response.body)
        #expect(image.bands == 3)
        let pixel = try image.pixel(x: 50, y: 50)  // the transparent band across the middle
        #expect(pixel.allSatisfy { $0 > 245 }, "\(pixel)")
    }

    @Test func sixteenBitAndAnimatedSourcesWork() throws {
        let deep = try get("/img/deep.png?w=150")
        let deepHeader = try ImageHeader.read(deep.body)
        #expect(deep.status == 200 && deepHeader.bitsPerSample == 8)
        let anim = try get("/img/anim.gif?w=20")
        let header = try ImageHeader.read(anim.body)
        #expect(header.pages == 1 && header.width == 20 && header.height == 15)
    }

    @Test(arguments: ["jpeg", "png", "webp", "avif"])
    func noMetadataInAnyFormat(_ format: String) throws {
        let body = try get("/img/tagged.jpg?w=100&fm=\(format)").body
        for marker in ["Exif", "ICC_PROFILE", "iCCP", "ICCP", "XMP ", "http://ns.adobe.com/xap", "thumbd-secret", "prof"] {
            #expect(!TestBytes.contains(body, marker), "\(format) output contains \(marker)")
        }
    }

    @Test func equivalentRequestsGiveIdenticalBytesAndETags() throws {
        let a = try get("/img/photo.jpg?w=200&h=100&fit=cover&q=80")
        let b = try get("/img/photo.jpg?fit=cover&h=100&w=200")
        let c = try get("/img/photo.jpg?w=100&h=50&dpr=2&fit=cover&crop=center")
        #expect(a.body == b.body && b.body == c.body)
        #expect(a.header("ETag") != nil && a.header("ETag") == b.header("ETag") && b.header("ETag") == c.header("ETag"))
        #expect(try get("/img/photo.jpg?w=201&h=100&fit=cover").header("ETag") != a.header("ETag"))
    }

    /// `limits.max_source_pixels` on a still image, at its edge: one pixel over is refused from
    /// the header, exactly the limit is made.
    @Test func aStillImageJustOverThePixelLimitIsRefusedAndOneAtItIsMade() throws {
        let f = try LibraryFixture(files: [
            "at.png": try ImageSynthesis.pattern(width: 100, height: 100).encode(.png),
            "over.png": try ImageSynthesis.pattern(width: 101, height: 100).encode(.png),
        ]) { $0.limits.maxSourcePixels = 100 * 100 }
        let at = try RawHTTPClient(port: f.port).request("GET", "/img/at.png?w=50")
        #expect(at.status == 200)
        let over = try RawHTTPClient(port: f.port).request("GET", "/img/over.png?w=50")
        #expect(over.status == 422 && over.text.contains("101x100"), "\(over.text)")
        #expect(f.service.app.thumbnails.memory.usage.reservedTotal > 0)
    }

    @Test func transformedOutputHasFullHeadersRangesAndConditionals() throws {
        let client = try RawHTTPClient(port: Self.fixture.port, timeout: 30)
        let target = "/img/photo.jpg?w=400&fm=webp"
        let full = try client.request("GET", target)
        let etag = try #require(full.header("ETag"))
        #expect(!etag.hasPrefix("W/"))
        #expect(full.header("Cache-Control") == "public, max-age=86400")
        #expect(full.header("Last-Modified") != nil)
        #expect(full.header("Accept-Ranges") == "bytes")
        #expect(full.header("Server-Timing")?.contains("transform;dur=") == true)
        #expect(try client.request("GET", target, headers: ["If-None-Match: \(etag)"]).status == 304)
        // Weak comparison for If-None-Match, strong for If-Match (RFC 9110 §13.1.1, §13.1.2).
        #expect(try client.request("GET", target, headers: ["If-None-Match: W/\(etag)"]).status == 304)
        #expect(try client.request("GET", target, headers: ["If-Match: W/\(etag)"]).status == 412)
        #expect(try client.request("GET", target, headers: ["If-Match: \(etag)"]).status == 200)
        // If-Match first: a failed one is 412 though If-None-Match alone would be 304.
        #expect(try client.request("GET", target, headers: ["If-Match: \"v0\"", "If-None-Match: \(etag)"]).status == 412)
        let part = try client.request("GET", target, headers: ["Range: bytes=10-109", "If-Range: \(etag)"])
        #expect(part.status == 206)
        #expect(part.body == Array(full.body[10..<110]))
        #expect(part.header("Content-Range") == "bytes 10-109/\(full.body.count)")
        let head = try client.request("HEAD", target)
        #expect(head.header("Content-Length") == "\(full.body.count)" && head.header("ETag") == etag && head.body.isEmpty)
    }

    @Test(arguments: [
        ("truncated.jpg?w=100", 422), ("garbage.jpg?w=100", 422), ("huge.png?w=100", 422),
        ("photo.jpg?w=0", 400), ("photo.jpg?w=abc", 400), ("photo.jpg?fit=squash", 400), ("photo.jpg?w=1&w=2", 400),
        ("photo.jpg?nope=1", 400), ("photo.jpg?q=101", 400), ("photo.jpg?dpr=9", 400), ("photo.jpg?p=missing", 400),
        ("missing.jpg?w=100", 404),
    ])
    func badInputGetsAProblemAndTheServerStaysHealthy(_ target: String, _ status: Int) throws {
        let response = try get("/img/" + target)
        #expect(response.status == status, "\(target): \(response.text)")
        #expect(response.header("Content-Type") == "application/problem+json")
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(json?["status"] as? Int == status)
        if status == 400 {
            let name = String(target.split(separator: "?")[1].split(separator: "=")[0])
            #expect(json?["parameter"] as? String == name)
        }
        #expect(try get("/health").status == 200)
        #expect(try get("/img/photo.jpg?w=50").status == 200)
    }

    /// An encoder that fails is the server's fault, not the client's: 500, logged and
    /// counted as a failed transform. WebP cannot be wider than 16,383 pixels, so a
    /// 16,400-pixel-wide WebP (allowed here by a raised dimension limit) fails to encode.
    @Test func anEncoderFailureIs500() throws {
        let f = try LibraryFixture(files: ["photo.jpg": Self.sources["photo.jpg"]!]) { $0.limits.maxDimension = 20_000 }
        let failing = try RawHTTPClient(port: f.port).request("GET", "/img/photo.jpg?w=16400&h=1&fit=fill&enlarge=1&fm=webp")
        #expect(failing.status == 500, "\(failing.text)")
        #expect(failing.header("Content-Type") == "application/problem+json")
        #expect(failing.text.contains("cannot be encoded"))
        // The same size as JPEG encodes: it was the encoder, not the source.
        let jpeg = try RawHTTPClient(port: f.port).request("GET", "/img/photo.jpg?w=16400&h=1&fit=fill&enlarge=1&fm=jpeg")
        #expect(jpeg.status == 200)
        let metrics = try PrometheusText(RawHTTPClient(port: f.port).request("GET", "/metrics").text)
        #expect(metrics.value("thumbd_transforms_total", ["format": "webp", "result": "error"]) == 1)
    }
}
