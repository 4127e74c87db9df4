import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// SVG and PDF sources drawn by renderer processes: whatever a document does costs its own
/// process, never the server's, and is stopped at its bound; PDF pages are thumbnails again.
@Suite(.serialized) struct VectorSourceTests {
    static let photo = try! ImageSynthesis.pattern(width: 640, height: 480, seed: 9).encode(.jpeg)
    static let small = try! ImageSynthesis.pattern(width: 300, height: 200, seed: 4).encode(.png)
    static let blurBomb = RunawayTransformTests.blurBomb
    static let svg = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="100" height="100" fill="#ff0000"/><rect x="100" width="100" height="100" fill="#0000ff"/></svg>"##.utf8)

    static func corpus(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: PackageRoot.url.appendingPathComponent("Tests/Fuzz/corpus/\(name)")))
    }

    static let fixture: LibraryFixture = try! LibraryFixture(files: [
        "photo.jpg": photo,
        "small.png": small,
        "flag.svg": svg,
        "page.pdf": TestDocuments.pdf(pages: [(0.9, 0.1, 0.1)]),
        "pages.pdf": TestDocuments.pdf(pages: (0..<5000).map { i in (Double(i % 3) / 2, 0.2, 0.5) }),
        "huge-page.pdf": TestDocuments.pdf(pages: [(0.2, 0.4, 0.8)], sizes: [(200_000, 200_000)]),
        "runaway.pdf": try! corpus("pdf-source/poppler-runaway.pdf"),
    ]) { $0.limits.vectorSeconds = 5 }

    func get(_ target: String) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: Self.fixture.port, timeout: 60).request("GET", target)
    }

    @Test func anSVGIsDrawnAtTheSizeItsOutputNeeds() throws {
        let answer = try get("/img/flag.svg?w=400&fm=png")
        #expect(answer.status == 200 && answer.header("Content-Type") == "image/png", "\(answer.text)")
        let image = try VipsImage.decode(answer.body)
        #expect(image.width == 400 && image.height == 200)
        let left = try image.pixel(x: 50, y: 100), right = try image.pixel(x: 350, y: 100)
        #expect(left[0] > 240 && left[2] < 15 && right[2] > 240 && right[0] < 15)
        // rect counts in the page's own pixels, whatever scale it is drawn at.
        let cut = try VipsImage.decode(get("/img/flag.svg?rect=100,0,100,100&w=300&fm=png").body)
        #expect(cut.width == 300 && cut.height == 300)
        #expect(try cut.pixel(x: 150, y: 150)[2] > 240)
        #expect(try get("/img/flag.svg?rect=150,0,100,100&w=30").status == 400)
    }

    @Test func aPlainPDFPageIsAThumbnail() throws {
        let answer = try get("/img/page.pdf?w=80")
        #expect(answer.status == 200 && answer.header("Content-Type") == "image/png", "\(answer.status) \(answer.text)")
        let image = try VipsImage.decode(answer.body)
        #expect(image.width == 80 && image.height == 80)
        let pixel = try image.pixel(x: 40, y: 40)
        #expect(pixel[0] > 200 && pixel[1] < 60 && pixel[2] < 60, "\(pixel)")
        let original = try get("/img/page.pdf")
        #expect(original.header("Content-Type") == "application/pdf" && original.header("Content-Security-Policy")?.contains("sandbox") == true)
    }

    @Test func aFiveThousandPageDocumentByPage() throws {
        for page in [1, 4999, 5000] {
            let answer = try get("/img/pages.pdf?w=40&page=\(page)")
            #expect(answer.status == 200, "page \(page): \(answer.status) \(answer.text)")
            let pixel = try VipsImage.decode(answer.body).pixel(x: 20, y: 20)
            let expected = Double((page - 1) % 3) / 2 * 255
            #expect(abs(pixel[0] - expected) < 3, "page \(page): \(pixel)")
        }
        let past = try get("/img/pages.pdf?w=40&page=5001")
        #expect(past.status == 400 && past.text.contains("\"parameter\":\"page\""), "\(past.text)")
        let info = try JSONSerialization.jsonObject(with: Data(get("/v1/images/pages.pdf").body)) as? [String: Any]
        #expect(info?["pages"] as? Int == 5000 && info?["format"] as? String == "pdf", "\(String(describing: info))")
    }

    @Test func aPageOf200000PointsIsDrawnAtOutputScaleAsASourceAndAsAWatermark() throws {
        let source = try get("/img/huge-page.pdf?w=300")
        #expect(source.status == 200, "\(source.text)")
        let image = try VipsImage.decode(source.body)
        #expect(image.width == 300 && image.height == 300)
        let marked = try get("/img/photo.jpg?w=300&wm=huge-page.pdf&wmscale=0.5")
        #expect(marked.status == 200, "\(marked.text)")
        // Asked at its full size it is refused before anything is drawn.
        let whole = try get("/img/huge-page.pdf?fm=png")
        #expect(whole.status == 422, "\(whole.status) \(whole.text)")
    }

    @Test func popplersRunawayIsKilledAtItsLimitWhileTheServerKeepsServing() throws {
        let started = Date()
        let runaway = Thread.detachedResult { (try? self.get("/img/runaway.pdf?w=100"))?.status ?? 0 }
        // Meanwhile other misses are made.
        for width in [101, 102, 103] { #expect(try get("/img/photo.jpg?w=\(width)").status == 200) }
        let status = runaway.wait()
        #expect(status == 422, "the runaway document: \(status)")
        #expect(Date().timeIntervalSince(started) < 5 + 2)
        #expect(try get("/img/page.pdf?w=81").status == 200)
        // Its facts are refused alike.
        #expect(try get("/v1/images/runaway.pdf").status == 422)
    }

    /// The blur SVG at 4096 px (the issue's probe): the server answers by its response timeout
    /// at the latest, its own CPU is idle and its memory unchanged after, and no renderer is
    /// still working; the next miss is made at once.
    @Test func theBlurBombCostsItsRendererNotTheServer() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-vectors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("library"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.blurBomb).write(to: folder.appendingPathComponent("library/bomb.svg"))
        try Data(Self.small).write(to: folder.appendingPathComponent("library/small.png"))
        try Data(Self.svg).write(to: folder.appendingPathComponent("library/flag.svg"))
        let server = try ThumbdProcess(arguments: ["--library", folder.appendingPathComponent("library").path,
                                                   "--cache-dir", folder.appendingPathComponent("cache").path],
                                       environment: ["THUMBD_SERVER_RESPONSE_TIMEOUT": "6s", "THUMBD_LOGGING_ACCESS": "false",
                                                     "THUMBD_LIBRARY_DEMO": "false"])
        defer { server.stop() }
        func get(_ target: String) throws -> RawHTTPClient.Response {
            try RawHTTPClient(port: server.port, timeout: 60).request("GET", target)
        }
        // Warm: a renderer started, an SVG and a raster made.
        #expect(try get("/img/flag.svg?w=64").status == 200)
        #expect(try get("/img/small.png?w=64").status == 200)
        let rssBefore = server.residentBytes
        let started = Date()
        let bomb = try get("/img/bomb.svg?w=4096&fm=png")
        let seconds = Date().timeIntervalSince(started)
        #expect([422, 503].contains(bomb.status), "\(bomb.status) \(bomb.text)")
        #expect(seconds <= 6 + 1, "answered after \(seconds) s")
        // After the answer: the server's CPU idle, no renderer left working.
        usleep(200_000)
        let cpu = server.cpuSeconds
        let renderers = server.children
        let rendererCPU = renderers.map { ThumbdProcess.cpuSeconds($0) }.reduce(0, +)
        usleep(1_000_000)
        let serverCPU = server.cpuSeconds - cpu
        let stillDrawing = server.children.filter(renderers.contains).map { ThumbdProcess.cpuSeconds($0) }.reduce(0, +) - rendererCPU
        #expect(serverCPU < 0.1, "the server used \(serverCPU) s of CPU in the second after the answer")
        #expect(stillDrawing < 0.1, "its renderers used \(stillDrawing) s of CPU in the second after the answer")
        let grown = server.residentBytes - rssBefore
        #expect(grown < 20 << 20, "the server's RSS grew by \(grown >> 20) MB")
        let next = Date()
        #expect(try get("/img/small.png?w=65").status == 200)
        #expect(try get("/img/flag.svg?w=65").status == 200)
        #expect(Date().timeIntervalSince(next) < 2)
        print("blur bomb: \(bomb.status) after \(String(format: "%.2f", seconds)) s; server CPU \(String(format: "%.3f", serverCPU)) s "
              + "in the second after, RSS \(grown >> 10) KiB more")
    }
}
