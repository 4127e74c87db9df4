import Foundation
import Imaging
import ImagingTestSupport
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// Videos in the library, over HTTP against the real server, on clips the real `ffmpeg` makes
/// (a red second, a green one, a blue one): posters at a time with image parameters, the
/// default time, rotation, the `anim=1` preview, the original played with Range and 304, the
/// facts, the listing, and hostile files answered with their problems.
@Suite struct VideoRouteTests {
    static let clip = Result { try TestClips.segments() }
    static let red = (255, 0, 0), green = (0, 255, 0), blue = (0, 0, 255)

    /// The colour in the middle of an encoded image (its first frame).
    static func centre(_ bytes: [UInt8]) throws -> (Int, Int, Int) {
        let image = try VipsImage.decode(bytes)
        let p = try image.pixel(x: image.width / 2, y: image.frameHeight / 2)
        return (Int(p[0]), Int(p[1]), Int(p[2]))
    }

    static func near(_ c: (Int, Int, Int), _ e: (Int, Int, Int)) -> Bool {
        abs(c.0 - e.0) <= 30 && abs(c.1 - e.1) <= 30 && abs(c.2 - e.2) <= 30
    }

    func json(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func thePosterIsTheFrameAtTheTimeAsked() throws {
        let clip = try Self.clip.get()
        let webm = try TestClips.segments(codec: TestClips.vp9.codec, container: TestClips.vp9.container, extra: TestClips.vp9.extra)
        let mov = try TestClips.segments(container: "mov")
        let f = try LibraryFixture(files: ["clip.mp4": clip, "clip.webm": webm, "clip.mov": mov])
        let client = try RawHTTPClient(port: f.port)
        #expect(try client.request("GET", "/img/clip.mov").header("Content-Type") == "video/quicktime")
        #expect(try client.request("GET", "/img/clip.webm").header("Content-Type") == "video/webm")
        for name in ["clip.mp4", "clip.webm", "clip.mov"] {
            for (t, colour) in [("0", Self.red), ("1.5", Self.green), ("2.5", Self.blue), ("10%25", Self.red), ("90%25", Self.blue), ("60", Self.blue)] {
                let response = try client.request("GET", "/img/\(name)?w=80&t=\(t)")
                #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg", "\(name) t=\(t): \(response.status)")
                let image = try VipsImage.decode(response.body)
                #expect(image.width == 80 && image.height == 60)
                let found = try Self.centre(response.body)
                #expect(Self.near(found, colour), "\(name) t=\(t): \(found)")
            }
        }
        // Every image parameter applies to the frame: a square crop, WebP, greyscale.
        let square = try client.request("GET", "/img/clip.mp4?w=50&h=50&fit=cover&fm=webp&gray=1&t=1.5")
        #expect(square.header("Content-Type") == "image/webp")
        let image = try VipsImage.decode(square.body)
        let grey = try Self.centre(square.body)
        #expect(image.width == 50 && image.height == 50 && abs(grey.0 - grey.1) < 4 && abs(grey.1 - grey.2) < 4, "\(grey)")
        // Server-Timing names the frame's decode on a miss; the same URL is a hit after it.
        let again = try client.request("GET", "/img/clip.mp4?w=80&t=1.5")
        #expect(again.header("X-Cache") == "memory", "\(again.header("X-Cache") ?? "")")
        let other = try client.request("GET", "/img/clip.mp4?w=81&t=1.5")
        #expect(other.header("Server-Timing")?.contains("frame;dur=") == true, "\(other.header("Server-Timing") ?? "")")
        // t that is not a time is the parameter's problem; an image ignores t (one cache entry).
        let bad = try client.request("GET", "/img/clip.mp4?w=80&t=-1")
        #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("\"parameter\":\"t\""))
    }

    @Test func theDefaultPosterSkipsABlackStart() throws {
        // 4 s: 10% (0.4 s) and 25% (1 s) are black, 50% (2 s) is green.
        let fading = try TestClips.segments(["black", "black", "lime", "lime"])
        let clip = try Self.clip.get()
        let f = try LibraryFixture(files: ["clip.mp4": clip, "fade.mp4": fading])
        let client = try RawHTTPClient(port: f.port)
        // A 3-s clip without t: 10% in, the red start.
        #expect(Self.near(try Self.centre(client.request("GET", "/img/clip.mp4?w=80").body), Self.red))
        #expect(Self.near(try Self.centre(client.request("GET", "/img/fade.mp4?w=80").body), Self.green))
        // Asked for, a black frame is what it is.
        #expect(Self.near(try Self.centre(client.request("GET", "/img/fade.mp4?w=80&t=0.5").body), (0, 0, 0)))
    }

    @Test func aTurnedVideoGivesAnUprightPosterAndFacts() throws {
        let turned = TestClips.quarterTurned(try Self.clip.get())
        let f = try LibraryFixture(files: ["portrait.mp4": turned])
        let client = try RawHTTPClient(port: f.port)
        let poster = try VipsImage.decode(client.request("GET", "/img/portrait.mp4?t=1.5&fm=png").body)
        #expect(poster.width == 120 && poster.height == 160, "\(poster.width)x\(poster.height)")
        let info = try json(client.request("GET", "/v1/images/portrait.mp4"))
        #expect(info["width"] as? Int == 120 && info["height"] as? Int == 160, "\(info)")
    }

    /// A library file is read where FFmpeg asks (`VideoReader(file:length:)`): a poster of a long
    /// grainy clip costs a part of it, not the whole file.
    @Test func aLibraryPosterReadsPartOfItsFile() throws {
        let big = try TestClips.segments(["red", "lime", "blue", "yellow"], seconds: 2, width: 320, height: 240, noise: 20)
        let f = try LibraryFixture(files: ["big.mp4": big])
        let client = try RawHTTPClient(port: f.port)
        let poster = try client.request("GET", "/img/big.mp4?w=80&t=6.5")
        #expect(poster.status == 200, "\(poster.status)")
        let centre = try Self.centre(poster.body)
        #expect(Self.near(centre, (255, 255, 0)), "yellow at 6.5 s: \(centre)")
        let metrics = try PrometheusText(client.request("GET", "/metrics").text)
        let read = try #require(metrics.value("thumbd_video_source_bytes_total", [:]))
        #expect(read > 0 && read < Double(big.count) / 2, "the poster read \(read) of \(big.count) bytes")
    }

    @Test func aPreviewHasFramesSpreadOverTheClip() throws {
        let clip = try Self.clip.get()
        let f = try LibraryFixture(files: ["clip.mp4": clip])
        let response = try RawHTTPClient(port: f.port).request("GET", "/img/clip.mp4?w=80&fm=webp&anim=1")
        #expect(response.status == 200 && response.header("Content-Type") == "image/webp")
        let header = try ImageHeader.read(response.body)
        // Eight parts of a 3-s clip with a keyframe each second: the keyframes at 0, 1 and 2 s.
        #expect(header.pages == 3 && header.width == 80 && header.height == 60, "\(header)")
        var colours: [(Int, Int, Int)] = []
        for page in 0..<header.pages { colours.append(try Self.centre(Self.page(response.body, page))) }
        #expect(zip(colours, [Self.red, Self.green, Self.blue]).allSatisfy { Self.near($0, $1) }, "\(colours)")
    }

    /// One page of an animation, as a PNG of its own.
    static func page(_ bytes: [UInt8], _ index: Int) throws -> [UInt8] {
        try VipsImage.pagePNG(bytes, page: index)
    }

    @Test func theOriginalPlaysWithRangesAndValidators() throws {
        let bytes = try Self.clip.get()
        let f = try LibraryFixture(files: ["clip.mp4": bytes])
        let client = try RawHTTPClient(port: f.port)
        let whole = try client.request("GET", "/img/clip.mp4")
        #expect(whole.status == 200 && whole.body == bytes && whole.header("Content-Type") == "video/mp4")
        #expect(whole.header("Accept-Ranges") == "bytes")
        let etag = try #require(whole.header("ETag"))
        let part = try client.request("GET", "/img/clip.mp4", headers: ["Range: bytes=100-299"])
        #expect(part.status == 206 && part.body == Array(bytes[100..<300]) && part.header("Content-Type") == "video/mp4")
        #expect(part.header("Content-Range") == "bytes 100-299/\(bytes.count)")
        let same = try client.request("GET", "/img/clip.mp4", headers: ["If-None-Match: \(etag)"])
        #expect(same.status == 304 && same.body.isEmpty)
    }

    @Test func factsListingAndPicsum() throws {
        let photo = try ImageSynthesis.pattern(width: 64, height: 48).encode(.jpeg)
        let clip = try Self.clip.get()
        let f = try LibraryFixture(files: ["clip.mp4": clip, "photo.jpg": photo])
        let client = try RawHTTPClient(port: f.port)
        let info = try json(client.request("GET", "/v1/images/clip.mp4"))
        #expect(info["format"] as? String == "mp4" && info["codec"] as? String == "h264", "\(info)")
        #expect(abs((info["duration"] as? Double ?? 0) - 3) < 0.1 && info["frame_rate"] as? Int == 25, "\(info)")
        #expect(info["width"] as? Int == 160 && info["height"] as? Int == 120 && (info["placeholder"] as? String ?? "").count > 8)
        // The poster's colour: red at 10% of the clip.
        #expect(info["color"] as? String == "#fe0000" || (info["color"] as? String ?? "").hasPrefix("#f"), "\(info)")
        let photoInfo = try json(client.request("GET", "/v1/images/photo.jpg"))
        #expect(photoInfo["duration"] == nil && photoInfo["codec"] == nil)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(client.request("GET", "/v1/images").body)) as? [[String: Any]])
        #expect(listed.count == 2)
        let video = try #require(listed.first { $0["id"] as? String == "clip.mp4" })
        #expect(abs((video["duration"] as? Double ?? 0) - 3) < 0.1 && video["format"] as? String == "mp4")
        // Picsum's clients expect photos: the video is not among them.
        let picsum = try #require(try JSONSerialization.jsonObject(with: Data(client.request("GET", "/v2/list").body)) as? [[String: Any]])
        #expect(picsum.count == 1 && (picsum[0]["url"] as? String ?? "").hasSuffix("photo.jpg"), "\(picsum)")
        // The gallery's tile shows the poster and plays the original.
        let gallery = String(decoding: try client.request("GET", "/").body, as: UTF8.self)
        #expect(gallery.contains("data-video=\"/img/clip.mp4\"") && gallery.contains("0:03"))
    }

    @Test func hostileVideosGetTheirProblems() throws {
        let bytes = try Self.clip.get()
        var junk = Array(bytes.prefix(32))
        junk += [UInt8](repeating: 0x41, count: 4000)
        let f = try LibraryFixture(files: ["cut.mp4": Array(bytes.prefix(bytes.count / 3)), "junk.mp4": junk,
                                           "odd.mp4": TestClips.unknownCodec(bytes), "clip.mp4": bytes]) { config in
            config.limits.videoMaxDuration = 2.5
        }
        let client = try RawHTTPClient(port: f.port)
        for (name, status) in [("cut.mp4", 422), ("junk.mp4", 422), ("odd.mp4", 415), ("clip.mp4", 422)] {
            let response = try client.request("GET", "/img/\(name)?w=80&t=1")
            #expect(response.status == status && response.header("Content-Type") == "application/problem+json",
                    "\(name): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        let long = String(decoding: try client.request("GET", "/img/clip.mp4?w=80").body, as: UTF8.self)
        #expect(long.contains("limits.video_max_duration"), "\(long)")
        // Frames over the pixel limit are refused before any is decoded.
        let small = try LibraryFixture(files: ["clip.mp4": bytes]) { config in config.limits.maxSourcePixels = 10_000 }
        let refused = try RawHTTPClient(port: small.port).request("GET", "/img/clip.mp4?w=80")
        #expect(refused.status == 422, "\(refused.status)")
        // The server still serves after all of them.
        #expect(try client.request("GET", "/health").status == 200)
    }

    @Test func aRemoteVideoGivesItsPosterThroughProxy() throws {
        let bytes = try Self.clip.get()
        let origin = try LibraryFixture(files: ["clip.mp4": bytes])
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
        }
        let client = try RawHTTPClient(port: f.port)
        let url = "http://127.0.0.1:\(origin.port)/img/clip.mp4"
        let poster = try client.request("GET", "/proxy?url=\(url)&w=80&t=2.5")
        #expect(poster.status == 200, "\(poster.status)")
        #expect(Self.near(try Self.centre(poster.body), Self.blue))
        let original = try client.request("GET", "/proxy?url=\(url)")
        #expect(original.status == 200 && original.body == bytes && original.header("Content-Type") == "video/mp4")
    }

    /// A remote video over `limits.max_source_bytes` is read by ranges from its origin (here a
    /// thumbd serving its library, with Range and ETags): the poster costs a part of it.
    @Test func aLargeRemoteVideoIsReadByRanges() throws {
        let big = try TestClips.segments(["red", "lime", "blue", "yellow"], seconds: 2, width: 320, height: 240, noise: 20)
        let origin = try LibraryFixture(files: ["big.mp4": big])
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
            config.limits.maxSourceBytes = 256 << 10
        }
        #expect(big.count > 3 * RangedReads.blockSize, "\(big.count) bytes")
        let client = try RawHTTPClient(port: f.port)
        let url = "http://127.0.0.1:\(origin.port)/img/big.mp4"
        let poster = try client.request("GET", "/proxy?url=\(url)&w=80&t=6.5")
        #expect(poster.status == 200, "\(poster.status) \(poster.text)")
        let centre = try Self.centre(poster.body)
        #expect(Self.near(centre, (255, 255, 0)), "yellow at 6.5 s: \(centre)")
        let metrics = try PrometheusText(client.request("GET", "/metrics").text)
        let fetched = try #require(metrics.value("thumbd_video_source_bytes_total", [:]))
        #expect(fetched > 0 && fetched < Double(big.count) / 2, "the poster cost \(fetched) of \(big.count) bytes")
        // An image over the limit is still refused for its size.
        let photo = try ImageSynthesis.pattern(width: 800, height: 600).encode(.png)
        try origin.write("big.png", photo)
        #expect(photo.count > 256 << 10)
        #expect(try client.request("GET", "/proxy?url=http://127.0.0.1:\(origin.port)/img/big.png&w=80").status == 413)
    }
}
