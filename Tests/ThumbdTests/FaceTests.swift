import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

/// `crop=face`, `redact=face` and the info's `faces`, over HTTP against the real server with
/// real photographs (Tests/Faces/labels.tsv).
@Suite struct FaceTests {
    static let green: [UInt8] = [0, 255, 0]

    /// The labelled face of astronaut.png with its margin, as RGB rows: what the crop must keep.
    static func facePatch() throws -> (pixels: [UInt8], width: Int, height: Int) {
        let preview = try ImagePreview.make(try FacePhotos.bytes("astronaut.png"), maxSide: 512)
        let box = PixelRect(x: 152, y: 51, width: 136, height: 143)
        var pixels: [UInt8] = []
        for y in box.y..<(box.y + box.height) {
            for x in box.x..<(box.x + box.width) {
                let i = (y * preview.width + x) * 4
                pixels += preview.rgba[i..<(i + 3)]
            }
        }
        return (pixels, box.width, box.height)
    }

    /// A green image with that face at `origin`, near an edge, which a centred crop loses, and at
    /// `lure` a magenta and white checkerboard of 300 px: edges and saturation that libvips'
    /// `attention` prefers to the face.
    static func scene(width: Int, height: Int, faceAt origin: (x: Int, y: Int), lure: (x: Int, y: Int)) throws -> [UInt8] {
        let patch = try facePatch()
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) { pixels[i * 3 + 1] = 255 }
        for y in 0..<300 {
            for x in 0..<300 {
                let to = ((lure.y + y) * width + lure.x + x) * 3
                let lit: UInt8 = (x / 20 + y / 20) % 2 == 0 ? 255 : 0
                pixels.replaceSubrange(to..<(to + 3), with: [255, lit, 255])
            }
        }
        for y in 0..<patch.height {
            for x in 0..<patch.width {
                let to = ((origin.y + y) * width + origin.x + x) * 3, from = (y * patch.width + x) * 3
                pixels.replaceSubrange(to..<(to + 3), with: patch.pixels[from..<(from + 3)])
            }
        }
        return try ImageSynthesis.image(width: width, height: height, bands: 3, pixels: pixels).encode(.png)
    }

    /// Pixels of a PNG answer that are not the scene's green.
    static func notGreen(_ png: [UInt8]) throws -> Int {
        try count(png) { r, g, b in r > 40 || g < 215 || b > 40 }
    }

    /// Pixels of a PNG answer that are the lure's magenta.
    static func magenta(_ png: [UInt8]) throws -> Int {
        try count(png) { r, g, b in r > 100 && b > 100 && g < 90 }
    }

    static func count(_ png: [UInt8], where matches: (Int, Int, Int) -> Bool) throws -> Int {
        let image = try ImagePreview.make(png, maxSide: 4096)
        var count = 0
        for i in stride(from: 0, to: image.rgba.count, by: 4) where matches(Int(image.rgba[i]), Int(image.rgba[i + 1]), Int(image.rgba[i + 2])) {
            count += 1
        }
        return count
    }

    /// The faces of an info answer; nil when it has none.
    static func faces(_ body: [UInt8]) throws -> [DetectedFace]? {
        struct Info: Decodable { let faces: [DetectedFace]? }
        return try JSONDecoder().decode(Info.self, from: Data(body)).faces
    }

    /// A counter's value; -1 when the server does not report it.
    static func metric(_ name: String, port: Int) throws -> Int {
        try PrometheusText(RawHTTPClient(port: port).request("GET", "/metrics").text).value(name).map { Int($0) } ?? -1
    }

    @Test func aFaceCropKeepsTheWholeFaceAtEveryAspectRatio() throws {
        let f = try LibraryFixture(files: ["wide.png": try Self.scene(width: 1600, height: 500, faceAt: (1440, 300), lure: (0, 100)),
                                           "tall.png": try Self.scene(width: 500, height: 1600, faceAt: (20, 1440), lure: (100, 0))])
        let client = try RawHTTPClient(port: f.port)
        for (name, side) in [("wide.png", 1600), ("tall.png", 1600)] {
            // Whether a centred crop of that box loses the face (the test's own check).
            for (w, h, centreLoses) in [(200, 200, true), (300, 100, name == "tall.png"), (100, 300, name == "wide.png"), (160, 90, name == "tall.png")] {
                let scale = max(Double(w) / Double(name == "wide.png" ? side : 500), Double(h) / Double(name == "wide.png" ? 500 : side))
                let whole = 136.0 * 143.0 * scale * scale
                let face = try client.request("GET", "/img/\(name)?w=\(w)&h=\(h)&fit=cover&crop=face&fm=png")
                #expect(face.status == 200)
                let kept = try Self.notGreen(face.body)
                #expect(Double(kept) >= whole * 0.85, "\(name) \(w)x\(h): \(kept) of about \(Int(whole)) face pixels")
                // What the test tells apart: a centred crop loses the face, and `attention` (what
                // crop=face is without faces) goes to the lure.
                if centreLoses {
                    let centre = try client.request("GET", "/img/\(name)?w=\(w)&h=\(h)&fit=cover&fm=png")
                    #expect(Double(try Self.notGreen(centre.body)) < whole * 0.5, "\(name) \(w)x\(h) centred")
                    let attention = try client.request("GET", "/img/\(name)?w=\(w)&h=\(h)&fit=cover&crop=attention&fm=png")
                    let lure = 300.0 * 300.0 / 2 * scale * scale
                    #expect(Double(try Self.magenta(attention.body)) > lure * 0.3, "\(name) \(w)x\(h): attention")
                    #expect(Double(try Self.magenta(face.body)) < lure * 0.05, "\(name) \(w)x\(h): the face crop is not attention's")
                }
            }
        }
    }

    @Test func withoutAFaceTheCropIsAttentions() throws {
        let f = try LibraryFixture(files: ["dune.jpg": try FacePhotos.bytes("Dune.jpg")])
        let client = try RawHTTPClient(port: f.port)
        let face = try client.request("GET", "/img/dune.jpg?w=300&h=300&fit=cover&crop=face&fm=png")
        let attention = try client.request("GET", "/img/dune.jpg?w=300&h=300&fit=cover&crop=attention&fm=png")
        #expect(face.status == 200 && face.body == attention.body)
        #expect(face.header("ETag") != attention.header("ETag"), "other options, another ETag")
    }

    @Test func infoGivesTheLabelledFaces() throws {
        let names = ["astronaut.png", "basketball1.png", "messi5.jpg", "Dune.jpg"]
        let f = try LibraryFixture(files: Dictionary(uniqueKeysWithValues: try names.map { ($0, try FacePhotos.bytes($0)) }))
        let client = try RawHTTPClient(port: f.port)
        for photo in FacePhotos.labelled where names.contains(photo.name) {
            let faces = try #require(try Self.faces(client.request("GET", "/v1/images/\(photo.name)").body), "\(photo.name)")
            let boxes = faces.map(\.box)
            #expect(boxes.count == photo.faces.count, "\(photo.name): \(boxes)")
            #expect(faces.allSatisfy { ($0.score ?? 0) >= 0.6 && ($0.score ?? 0) <= 1 }, "\(photo.name): each with its score")
            for face in photo.faces {
                #expect(boxes.contains { FacePhotos.overlap($0, face) >= 0.5 }, "\(photo.name): \(face) against \(boxes)")
            }
        }
    }

    @Test func aRemoteOriginalsFacesServeItsInfoAndItsProxiedCrops() throws {
        let origin = try TestOrigin()
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
        }
        let url = "http://127.0.0.1:\(origin.port)/face.png".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let client = try RawHTTPClient(port: f.port)
        let faces = try #require(try Self.faces(client.request("GET", "/v1/info?url=\(url)").body))
        let labelled = try #require(FacePhotos.labelled.first { $0.name == "astronaut.png" }?.faces.first)
        #expect(faces.count == 1)
        #expect(faces.contains { FacePhotos.overlap($0.box, labelled) >= 0.5 })
        for query in ["w=100&h=100&fit=cover&crop=face", "w=200&redact=face"] {
            #expect(try client.request("GET", "/proxy?url=\(url)&\(query)").status == 200, "\(query)")
        }
        #expect(try Self.metric("thumbd_face_detections_total", port: f.port) == 1, "the info's detection serves the proxy")
    }

    @Test func redactionHidesTheFaceAtEverySizeAndLeavesTheRest() throws {
        let f = try LibraryFixture(files: ["astronaut.png": try FacePhotos.bytes("astronaut.png")])
        let client = try RawHTTPClient(port: f.port)
        let face = PixelRect(x: 175, y: 75, width: 90, height: 95)
        let grown = PixelRect(x: 145, y: 45, width: 150, height: 155)
        for (query, side) in [("w=512", 512), ("w=200", 200), ("w=512&sharpen=2&rect=100,0,412,400", 412), ("w=64", 64)] {
            let plain = try client.request("GET", "/img/astronaut.png?\(query)&fm=png")
            let hidden = try client.request("GET", "/img/astronaut.png?\(query)&redact=face&fm=png")
            #expect(plain.status == 200 && hidden.status == 200, "\(query)")
            let a = try ImagePreview.make(plain.body, maxSide: 512), b = try ImagePreview.make(hidden.body, maxSide: 512)
            let cut = query.contains("rect") ? (x: 100, y: 0) : (x: 0, y: 0)
            let scale = Double(a.width) / Double(side == 412 ? 412 : 512)
            func difference(inside box: PixelRect, _ wanted: Bool) -> Double {
                var sum = 0, count = 0
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        let sx = Double(x) / scale + Double(cut.x), sy = Double(y) / scale + Double(cut.y)
                        let inBox = sx >= Double(box.x) && sx < Double(box.x + box.width) && sy >= Double(box.y) && sy < Double(box.y + box.height)
                        guard inBox == wanted else { continue }
                        let i = (y * a.width + x) * 4
                        for c in 0..<3 { sum += abs(Int(a.rgba[i + c]) - Int(b.rgba[i + c])) }
                        count += 3
                    }
                }
                return Double(sum) / Double(max(1, count))
            }
            #expect(difference(inside: face, true) > 12, "\(query): the face changed")
            let outside = difference(inside: PixelRect(x: grown.x - 8, y: grown.y - 8, width: grown.width + 16, height: grown.height + 16), false)
            #expect(outside < 1.5, "\(query): the rest is as it was (\(outside))")
        }
        // At full size, the face is a few flat cells: far too few values to know anyone by.
        let full = try ImagePreview.make(try client.request("GET", "/img/astronaut.png?redact=face&fm=png").body, maxSide: 512)
        var colours = Set<[UInt8]>()
        for y in face.y..<(face.y + face.height) {
            for x in face.x..<(face.x + face.width) {
                let i = (y * full.width + x) * 4
                colours.insert(Array(full.rgba[i..<(i + 3)]))
            }
        }
        #expect(colours.count <= 36, "\(colours.count) colours in the face")
    }

    @Test func oneDetectionServesEverySizeTheInfoAndARestart() throws {
        let f = try LibraryFixture(files: ["astronaut.png": try FacePhotos.bytes("astronaut.png")])
        let client = try RawHTTPClient(port: f.port)
        for (w, h) in [(100, 100), (200, 300), (300, 200), (64, 64), (400, 100)] {
            #expect(try client.request("GET", "/img/astronaut.png?w=\(w)&h=\(h)&fit=cover&crop=face").status == 200)
        }
        #expect(try client.request("GET", "/img/astronaut.png?w=300&redact=face").status == 200)
        #expect(try client.request("GET", "/v1/images/astronaut.png").status == 200)
        #expect(try Self.metric("thumbd_face_detections_total", port: f.port) == 1)
        // The boxes are kept in the disk tier with the thumbnails.
        var config = f.service.config
        config.server.port = 0
        let restarted = try ThumbdService(config: config)
        defer { restarted.stop() }
        #expect(try RawHTTPClient(port: restarted.port).request("GET", "/img/astronaut.png?w=120&h=90&fit=cover&crop=face").status == 200)
        #expect(restarted.app.thumbnails.transformsRun.count == 1)
        #expect(restarted.app.thumbnails.faces?.detections.count == 0)
    }

    @Test func hostileAndUnusualSourcesAreBounded() throws {
        let huge = try ImageSynthesis.solid(width: 2_000, height: 1_000, color: [200, 200, 200]).encode(.png)
        let frames = try ImageSynthesis.animation([ImageSynthesis.solid(width: 60, height: 40, color: [255, 0, 0]),
                                                   ImageSynthesis.solid(width: 60, height: 40, color: [0, 0, 255])]).encode(.gif)
        let svg = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="800"><rect width="1000" height="800" fill="#c33"/></svg>"##.utf8)
        let tiff = try ImageSynthesis.encode(ImageSynthesis.pattern(width: 64, height: 64), as: .tiff)
        let f = try LibraryFixture(files: ["huge.png": huge, "anim.gif": frames, "drawing.svg": svg, "page.tif": tiff]) {
            $0.limits.maxSourcePixels = 1_000_000
        }
        let client = try RawHTTPClient(port: f.port)
        let refused = try client.request("GET", "/img/huge.png?w=100&h=100&fit=cover&crop=face")
        #expect(refused.status == 422, "over the pixel limit from the header, never decoded")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(client.request("GET", "/v1/images/huge.png").body)) as? [String: Any])
        #expect(info["faces"] == nil, "no faces for an image that cannot be read for them")
        let animated = try client.request("GET", "/img/anim.gif?w=40&redact=face&anim=1&fm=webp")
        #expect(animated.status == 200)
        #expect(try ImageHeader.read(animated.body).pages == 1, "a redacted animation gives its first frame")
        #expect(try client.request("GET", "/img/anim.gif?w=40&h=40&fit=cover&crop=face&anim=1&fm=webp").status == 200)
        for query in ["w=300&h=100&fit=cover&crop=face", "w=300&redact=face"] {
            let drawn = try client.request("GET", "/img/drawing.svg?\(query)")
            #expect(drawn.status == 200, "\(query): \(String(decoding: drawn.body.prefix(300), as: UTF8.self))")
        }
        let page = try client.request("GET", "/img/page.tif?w=30&redact=face&page=2")
        #expect(page.status == 400 && String(decoding: page.body, as: UTF8.self).contains("redact"))
        #expect(try client.request("GET", "/img/page.tif?w=30&redact=nose").status == 400)
        #expect(try Self.metric("thumbd_face_detections_total", port: f.port) == 2, "the animation's and the drawing's")
    }
}
