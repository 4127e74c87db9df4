import Clocks
import Dispatch
import Foundation
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import VectorPages

/// The real renderer processes (`thumbd render-vectors` of this build) drawing real documents,
/// and stopped the ways they must be.
@Suite struct VectorRendererTests {
    static let svg = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#36c"/></svg>"##.utf8)

    static func renderer(seconds: Double = 10, renderers: Int = 1, sandboxed: (@Sendable (Bool) -> Void)? = nil) throws -> VectorRenderer {
        let command = try #require(VectorRenderer.defaultCommand(), "no thumbd beside the test runner")
        return VectorRenderer(command: command, limits: .init(seconds: seconds, renderers: renderers), reportSandbox: sandboxed ?? { _ in })
    }

    static func corpus(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: PackageRoot.url.appendingPathComponent("Tests/Fuzz/corpus/\(name)")))
    }

    @Test func anSVGsHeaderAndItsDrawingAtAScale() throws {
        let renderer = try Self.renderer()
        defer { renderer.close() }
        let header = try renderer.header(of: Self.svg, page: 1)
        #expect(header.width == 200 && header.height == 100 && header.isVector && header.loader.hasPrefix("svgload"))
        let tiff = try renderer.draw(Self.svg, page: 1, scale: 0.5, maxPixels: 1_000_000, memoryBytes: 64 << 20).tiff
        let drawn = try ImageHeader.read(tiff)
        #expect(drawn.width == 100 && drawn.height == 50 && drawn.loader.hasPrefix("tiffload"))
        #expect(renderer.warm == 1 && renderer.statistics.started == 1)
    }

    @Test func aPDFsPagesEachWithItsSize() throws {
        let renderer = try Self.renderer()
        defer { renderer.close() }
        let pdf = TestDocuments.pdf(pages: [(1, 0, 0), (0, 1, 0), (0, 0, 1)], sizes: [(100, 100), (300, 150), (50, 400)])
        let first = try renderer.header(of: pdf, page: 1)
        #expect(first.pages == 3 && first.width == 100 && first.loader.hasPrefix("pdfload"))
        let second = try renderer.header(of: pdf, page: 2)
        #expect(second.width == 300 && second.height == 150 && second.pages == 3)
        #expect(throws: ImagingError.badParameter(name: "page", detail: "page 4 is past the source's 3 page(s)")) {
            try renderer.header(of: pdf, page: 4)
        }
        let tiff = try renderer.draw(pdf, page: 3, scale: 2, maxPixels: 1_000_000, memoryBytes: 64 << 20).tiff
        let drawn = try ImageHeader.read(tiff)
        #expect(drawn.width == 100 && drawn.height == 800)
    }

    @Test func aBurstsSparesAreKeptWhileItLastsAndLetGoAfter() throws {
        let clock = ManualClock()
        let command = try #require(VectorRenderer.defaultCommand())
        let renderer = VectorRenderer(command: command, limits: .init(seconds: 10, renderers: 1), clock: clock)
        defer { renderer.close() }
        let ready = DispatchSemaphore(value: 0)
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            _ = try? renderer.draw(Self.svg, page: 1, scale: 4, maxPixels: 1_000_000, memoryBytes: 64 << 20)
            ready.signal()
        }
        for _ in 0..<3 { ready.wait() }
        #expect(renderer.warm >= 1 && renderer.warm == renderer.statistics.started)
        let started = renderer.statistics.started
        // The next documents reuse what the burst started.
        for _ in 0..<3 { _ = try renderer.header(of: Self.svg, page: 1) }
        #expect(renderer.statistics.started == started)
        // Spares that waited less than a while stay (the burst may go on); then they go.
        renderer.retireSpares()
        #expect(renderer.warm == started)
        clock.advance(by: VectorRenderer.spareSeconds)
        renderer.retireSpares()
        #expect(renderer.warm == 1)
    }

    @Test func aDrawingOverItsPixelLimitIsRefusedBeforeItIsDrawn() throws {
        let renderer = try Self.renderer()
        defer { renderer.close() }
        #expect(throws: ImagingError.tooManyPixels(width: 2000, height: 1000, limit: 1000)) {
            try renderer.draw(Self.svg, page: 1, scale: 10, maxPixels: 1000, memoryBytes: 64 << 20)
        }
    }

    @Test func whatIsNoDocumentIsUnsupported() throws {
        let renderer = try Self.renderer()
        defer { renderer.close() }
        #expect(throws: ImagingError.unsupportedFormat) { try renderer.header(of: Array("not a document".utf8), page: 1) }
    }

    @Test func aRunawayDrawingIsKilledAtItsDeadlineAndTheNextOneIsDrawn() throws {
        let renderer = try Self.renderer(seconds: 1.5)
        defer { renderer.close() }
        let bomb = try Self.corpus("svg-source/blur-bomb.svg")
        _ = try renderer.header(of: bomb, page: 1)  // a warm renderer: the deadline is the drawing's
        let started = Date()
        #expect(throws: ImagingError.self) { try renderer.draw(bomb, page: 1, scale: 40.96, maxPixels: 50_000_000, memoryBytes: 1 << 30) }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < 3, "killed after \(seconds) s")
        #expect(renderer.statistics.timedOut + renderer.statistics.died == 1)
        #expect(try renderer.header(of: Self.svg, page: 1).width == 200)
    }

    @Test func popplersRunawayIsKilledAtItsLimitAndTheNextOneIsRead() throws {
        let renderer = try Self.renderer(seconds: 5)
        defer { renderer.close() }
        let runaway = try Self.corpus("pdf-source/poppler-runaway.pdf")
        let started = Date()
        #expect(throws: ImagingError.self) { try renderer.header(of: runaway, page: 1) }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < 6, "stopped after \(seconds) s")
        let pdf = TestDocuments.pdf(pages: [(1, 0, 0)])
        #expect(try renderer.header(of: pdf, page: 1).width == 100)
    }

    @Test func aDrawingNobodyWantsIsStoppedAtOnce() throws {
        let renderer = try Self.renderer(seconds: 30)
        defer { renderer.close() }
        let bomb = try Self.corpus("svg-source/blur-bomb.svg")
        _ = try renderer.header(of: bomb, page: 1)
        let started = Date()
        let stop = StopCheck { Date().timeIntervalSince(started) > 0.5 }
        #expect(throws: ImagingError.cancelled) {
            try renderer.draw(bomb, page: 1, scale: 40.96, maxPixels: 50_000_000, memoryBytes: 1 << 30, stop: stop)
        }
        #expect(Date().timeIntervalSince(started) < 1.5)
        #expect(renderer.statistics.stopped == 1)
    }

    /// An SVG that points at a local file and at an HTTP server: neither is read or asked.
    @Test func anSVGLoadsNoExternalFileOrURL() throws {
        let renderer = try Self.renderer()
        defer { renderer.close() }
        let listener = try RawListener(streamBody: false)
        let source = Array("""
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">
            <rect width="200" height="100" fill="#00ff00"/>
            <image x="0" y="0" width="100" height="100" xlink:href="file:///etc/passwd"/>
            <image x="0" y="0" width="100" height="100" href="file:///usr/share/backgrounds/mate/nature/Aqua.jpg"/>
            <image x="100" y="0" width="100" height="100" xlink:href="http://127.0.0.1:\(listener.port)/x.png"/>
            </svg>
            """.utf8)
        let image = try VipsImage.decode(renderer.draw(source, page: 1, scale: 1, maxPixels: 1 << 20, memoryBytes: 64 << 20).tiff)
        // Green everywhere: nothing was drawn over it.
        for (x, y) in [(50, 50), (150, 50)] {
            let pixel = try image.pixel(x: x, y: y)
            #expect(pixel[0] < 15 && pixel[1] > 240 && pixel[2] < 15, "\(pixel)")
        }
        // A connection of our own comes after any the renderer would have made.
        let own = try RawHTTPClient(port: listener.port)
        #expect(eventually(timeout: 30) { listener.accepted >= 1 })
        withExtendedLifetime(own) {}
        #expect(listener.accepted == 1)
    }

    @Test func theRenderersRunSandboxed() throws {
        let said = Mutex<Bool?>(nil)
        let renderer = try Self.renderer(sandboxed: { on in said.withLock { $0 = on } })
        defer { renderer.close() }
        _ = try renderer.header(of: Self.svg, page: 1)
        #expect(said.withLock { $0 } == true)
        // What the real process tries, refused: no network, no file written, no program, no
        // process, nothing of the server's (its signals, its limits, its environment).
        let report = try renderer.sandboxReport()
        for attempt in ["socket", "create-file", "open-for-writing", "signal-parent", "raise-limit", "limit-parent",
                        "read-parent-environment", "run-program", "start-process"] {
            #expect(report.contains("\(attempt):refused"), "\(attempt): \(report)")
        }
        #expect(!report.contains("ALLOWED"), "\(report)")
        // And it still draws after all that.
        #expect(try renderer.header(of: Self.svg, page: 1).width == 200)
    }

    @Test func aRendererGetsNoneOfTheServersEnvironment() {
        let given = VectorRenderer.environment(from: ["PATH=/usr/bin", "THUMBD_S3_SECRET_KEY=hush", "THUMBD_SECURITY_KEY=hush",
                                                      "LANG=C.UTF-8", "LC_ALL=C", "HOME=/root", "AWS_SECRET_ACCESS_KEY=x",
                                                      "FONTCONFIG_PATH=/etc/fonts", "NOEQUALS"])
        #expect(given == ["PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "HOME=/root", "FONTCONFIG_PATH=/etc/fonts"])
    }

    @Test func aRenderersWordsReachClientsAsOneShortPrintableLine() {
        let hostile = Array("secret\u{0}\n\r\u{1B}[31m".utf8) + Array(repeating: UInt8(ascii: "x"), count: 400)
        let said = VectorRenderer.message(hostile)
        #expect(said.count <= 200 && said.allSatisfy { $0.isASCII && !$0.isNewline && $0 != "\u{0}" && $0 != "\u{1B}" })
        #expect(VectorRenderer.message([]) == "the document cannot be read")
    }
}
