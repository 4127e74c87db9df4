import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

/// `q=auto` through the server: a quality per thumbnail within the target, measured here
/// again against the same transform made losslessly; one search per thumbnail, then hits;
/// the configured bounds; refusals naming `q`; the same bytes from another server.
@Suite struct AutoQualityTests {
    /// Smooth gradients: what a sky is to an encoder.
    static let flat: [UInt8] = try! ImageSynthesis.pattern(width: 640, height: 480, seed: 3).encode(.png)
    /// Leaves and grain: ripples at several scales with noise on them.
    static let detailed: [UInt8] = {
        var random = SplitMix64(seed: 11)
        var pixels = [UInt8](repeating: 0, count: 640 * 480 * 3)
        for y in 0..<480 {
            for x in 0..<640 {
                let ripple = 40 * sin(Double(x) * 0.21) * cos(Double(y) * 0.17) + 25 * sin(Double(x + 2 * y) * 0.05)
                for band in 0..<3 {
                    let grain = Double(random.next() % 41) - 20
                    pixels[(y * 640 + x) * 3 + band] = UInt8(max(0, min(255, 120 + Double(band) * 20 + ripple + grain)))
                }
            }
        }
        return try! ImageSynthesis.image(width: 640, height: 480, bands: 3, pixels: pixels).encode(.png)
    }()

    struct Searched {
        var quality: Int
        var distance: Double
        var encodes: Int
        var met: Bool
    }

    /// What the `quality` step of `Server-Timing` says; nil when there is none.
    static func searched(_ response: RawHTTPClient.Response) -> Searched? {
        guard let timing = response.header("Server-Timing"), let range = timing.range(of: "quality;desc=\"") else { return nil }
        let text = timing[range.upperBound...].prefix { $0 != "\"" }
        var fields: [String: String] = [:]
        for part in text.split(separator: " ") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let quality = fields["q"].flatMap({ Int($0) }), let distance = fields["distance"].flatMap({ Double($0) }),
              let encodes = fields["encodes"].flatMap({ Int($0) }) else { return nil }
        return Searched(quality: quality, distance: distance, encodes: encodes, met: fields["met"] != "0")
    }

    /// The answer's distance from the same thumbnail made losslessly (`fm=png`).
    static func distance(port: Int, path: String, query: String) throws -> Double {
        let answer = try RawHTTPClient(port: port).request("GET", path + "?" + query)
        let lossless = try RawHTTPClient(port: port).request("GET", path + "?" + query.replacingOccurrences(of: "q=auto", with: "q=80")
            .replacingOccurrences(of: "fm=jpeg", with: "fm=png").replacingOccurrences(of: "fm=webp", with: "fm=png")
            .replacingOccurrences(of: "fm=avif", with: "fm=png"))
        #expect(answer.status == 200 && lossless.status == 200 && lossless.header("Content-Type") == "image/png")
        return PerceptualDistance.distance(try VipsImage.decode(lossless.body).luma(), try VipsImage.decode(answer.body).luma())
    }

    /// Real photographs from mate-backgrounds (`scripts/ensure-deps.sh --tests`): calm water
    /// and sky, and bark and leaves.
    static func photo(_ name: String) throws -> [UInt8] {
        let path = "/usr/share/backgrounds/mate/nature/" + name
        let data = try #require(FileManager.default.contents(atPath: path), "\(path) is missing: run scripts/ensure-deps.sh --tests")
        return [UInt8](data)
    }

    // WebP is left out: the bark needs more than the default ceiling (85) for it.
    @Test(arguments: ["jpeg", "avif"])
    func aFlatAndADetailedPhotographGetTheirOwnQualityWithinTheTarget(format: String) throws {
        let f = try LibraryFixture(files: ["aqua.jpg": try Self.photo("Aqua.jpg"), "wood.jpg": try Self.photo("Wood.jpg")])
        var chosen: [Int] = []
        for name in ["aqua.jpg", "wood.jpg"] {
            let query = "w=300&fm=\(format)&q=auto"
            let response = try RawHTTPClient(port: f.port).request("GET", "/img/\(name)?" + query)
            let search = try #require(Self.searched(response), "\(name): \(response.header("Server-Timing") ?? "no Server-Timing")")
            #expect(search.met && search.encodes <= AutoQuality.defaultEncodes, "\(name) \(format): \(search)")
            #expect((AutoQuality.defaultFloor...AutoQuality.defaultCeiling).contains(search.quality))
            let measured = try Self.distance(port: f.port, path: "/img/\(name)", query: query)
            #expect(measured <= AutoQuality.defaultTarget, "\(name) \(format): \(measured)")
            #expect(abs(measured - search.distance) < 0.00001, "\(name) \(format): said \(search.distance), measured \(measured)")
            chosen.append(search.quality)
        }
        #expect(chosen[0] < chosen[1] - 5, "\(format): water \(chosen[0]), bark \(chosen[1])")
    }

    @Test func theSecondRequestIsAHitWithoutASearch() throws {
        let f = try LibraryFixture(files: ["detailed.png": Self.detailed])
        let first = try RawHTTPClient(port: f.port).request("GET", "/img/detailed.png?w=200&fm=webp&q=auto")
        let second = try RawHTTPClient(port: f.port).request("GET", "/img/detailed.png?w=200&fm=webp&q=auto")
        #expect(Self.searched(first) != nil && first.header("X-Cache") == "miss")
        #expect(Self.searched(second) == nil && second.header("X-Cache") == "memory" && second.body == first.body)
        let part = try RawHTTPClient(port: f.port).request("GET", "/img/detailed.png?w=200&fm=webp&q=auto", headers: ["Range: bytes=0-99"])
        #expect(part.status == 206 && part.body == Array(first.body.prefix(100)) && part.header("ETag") == first.header("ETag"))
        let metrics = try PrometheusText(RawHTTPClient(port: f.port).request("GET", "/metrics").text)
        #expect(metrics.value("thumbd_auto_quality_total", ["format": "webp", "met": "true"]) == 1)
        #expect(metrics.value("thumbd_auto_quality_chosen_sum", ["format": "webp"]).map { Int($0) } == Self.searched(first)?.quality)
        // The server's target named or not is one thumbnail; another target is another.
        let named = try RawHTTPClient(port: f.port).request("GET", "/img/detailed.png?w=200&fm=webp&q=auto:0.004")
        #expect(named.header("X-Cache") == "memory" && named.header("ETag") == first.header("ETag"))
        let other = try RawHTTPClient(port: f.port).request("GET", "/img/detailed.png?w=200&fm=webp&q=auto:0.002")
        #expect(other.header("X-Cache") == "miss" && other.header("ETag") != first.header("ETag"))
        let fixed = try RawHTTPClient(port: f.port).request("GET", "/img/detailed.png?w=200&fm=webp&q=80")
        #expect(Self.searched(fixed) == nil && fixed.header("ETag") != first.header("ETag"))
    }

    @Test func theConfiguredBoundsHold() throws {
        let f = try LibraryFixture(files: ["flat.png": Self.flat, "detailed.png": Self.detailed]) { config in
            config.output.autoQualityMin = 50
            config.output.autoQualityMax = 60
            config.output.autoQualityEncodes = 2
            config.output.autoQualityTarget = 0.0005
        }
        for name in ["flat.png", "detailed.png"] {
            let response = try RawHTTPClient(port: f.port).request("GET", "/img/\(name)?w=300&fm=jpeg&q=auto")
            let search = try #require(Self.searched(response))
            // A target no quality up to 60 meets: the ceiling, said to miss it, within two encodings.
            #expect(search.quality == 60 && !search.met && search.encodes <= 2, "\(name): \(search)")
        }
        let loose = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=300&fm=jpeg&q=auto:0.05")
        let search = try #require(Self.searched(loose))
        #expect(search.quality == 50 && search.met && search.encodes <= 2, "\(search)")
    }

    @Test func autoIsTheDefaultWhereConfigured() throws {
        let f = try LibraryFixture(files: ["flat.png": Self.flat]) { $0.output.autoQuality = true }
        let plain = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=120&fm=jpeg")
        let fixed = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=120&fm=jpeg&q=80")
        let png = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=120&fm=png&q=auto")
        #expect(Self.searched(plain) != nil && Self.searched(fixed) == nil && Self.searched(png) == nil)
        #expect(png.status == 200 && png.header("Content-Type") == "image/png")
        // thumbd reads no JPEG XL, so it cannot measure it: q=auto is the fixed quality there.
        let jxl = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=120&fm=jxl&q=auto")
        let fixedJXL = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=120&fm=jxl&q=80")
        #expect(jxl.status == 200 && jxl.header("Content-Type") == "image/jxl" && Self.searched(jxl) == nil, "\(jxl.status) \(jxl.text)")
        #expect(fixedJXL.header("X-Cache") == "memory" && fixedJXL.header("ETag") == jxl.header("ETag"))
    }

    @Test(arguments: ["auto:", "auto:0", "auto:0.0004", "auto:0.051", "auto:1", "auto:x", "auto:0.004:40", "automatic", "Auto",
                      "auto:-0.01", "auto:1e-3", "0", "101", ""])
    func badValuesAreRefusedNamingQ(value: String) throws {
        let f = try LibraryFixture(files: ["flat.png": Self.flat])
        let response = try RawHTTPClient(port: f.port).request("GET", "/img/flat.png?w=100&fm=jpeg&q=" + value)
        #expect(response.status == 400 && response.header("Content-Type") == "application/problem+json", "\(value)")
        #expect(response.text.contains("\"parameter\":\"q\""), "\(value): \(response.text)")
    }

    @Test func anotherServerChoosesTheSameBytes() throws {
        let query = "/img/detailed.png?w=240&h=240&fit=cover&fm=avif&q=auto"
        let first = try LibraryFixture(files: ["detailed.png": Self.detailed])
        // The source's version is its size and time: the replica's copy gets the same time.
        let modified = Date(timeIntervalSince1970: 1_790_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: first.libraryPath + "/detailed.png")
        let answer = try RawHTTPClient(port: first.port).request("GET", query)
        // Another replica, with caches of its own, in a process of its own.
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-auto-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: library) }
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try Data(Self.detailed).write(to: library.appendingPathComponent("detailed.png"))
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: library.appendingPathComponent("detailed.png").path)
        let replica = try ThumbdProcess(arguments: ["--library", library.path, "--cache-dir", library.appendingPathComponent(".cache").path])
        defer { replica.stop() }
        let again = try RawHTTPClient(port: replica.port).request("GET", query)
        #expect(answer.status == 200 && again.status == 200 && Self.searched(again) != nil)
        #expect(again.body == answer.body && again.header("ETag") == answer.header("ETag"))
    }
}
