import Foundation
import Imaging
import Testing
import TestSupport
import Thumbd
import ThumbdCore
import ThumbdKit

/// `thumbd-scroll` end to end, as `bench/scroll.sh` runs it but small: a real thumbd (started
/// in-process like every client test's) over 30 generated 1600x1200 photos, and the built tool
/// run against it as a subprocess. Nothing is built here: the tool is the one built next to
/// this test bundle (or the package's `.build/debug`).
///
/// The link is fast (200 Mbit/s) but every request waits 40 ms, so the naive client's single
/// serial queue manages at most 25 images a second while a 2,000 pt/s scroll brings 50 cells a
/// second: its downloads fall behind, and each lands on the cell it was started for, which by
/// then has been reused for a later item and is on screen again: the wrong-image bug, counted.
/// ThumbdKit's slots must never show another item's image, and its cell-sized thumbnails must
/// cost fewer bytes than the originals. Nothing about time is asserted (the machine is shared).
@Suite(.serialized) struct ScrollSimulationTests {
    /// The few figures asserted on, from the `RESULT` line.
    struct Figures: Decodable {
        let bytesDownloaded: Int
        let requests: Int
        let wrongImages: Int
        let cellAppearances: Int
    }

    struct ToolMissing: Error, CustomStringConvertible {
        let looked: [String]
        var description: String { "thumbd-scroll is not built (looked at \(looked.joined(separator: ", "))); build the package first" }
    }

    static func library() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for i in 0..<30 {
            let name = "grid/photo-\(i < 10 ? "0" : "")\(i).jpg"
            files[name] = try ImageSynthesis.pattern(width: 1600, height: 1200, seed: i).encode(.jpeg)
        }
        return files
    }

    /// The tool built with the code under test: next to the test bundle, else the package's
    /// debug build (found from this file's path).
    static func toolBinary() throws -> URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("thumbd-scroll")
        let debugBuild = PackageRoot.url.appendingPathComponent(".build/debug/thumbd-scroll")
        let candidates = [besideTests, debugBuild]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ToolMissing(looked: candidates.map(\.path))
        }
        return found
    }

    @Test func kitShowsNoWrongImagesAndDownloadsLessThanNaive() async throws {
        let tool = try Self.toolBinary()
        let server = try ThumbdServer(files: try Self.library())
        defer { withExtendedLifetime(server) {} }
        let arguments = [
            "--server", server.baseURL.absoluteString,
            "--bandwidth-mbit", "200", "--latency-ms", "40",
            // 30 images in 10 rows under a 300 pt viewport: about 3 rows on screen, so cells are
            // reused several times on the way down.
            "--viewport-points", "300", "--scroll-speed", "2000",
            "--pause-seconds", "0.3", "--full-screen-timeout", "1",
            "--json-only",
        ]
        // Killed after 5 minutes, so a hang cannot hold the suite.
        let result = try await runProgramOnItsOwnThread(tool.path, arguments, timeout: 300)
        #expect(result.status == 0, "thumbd-scroll failed: \(result.errors)")
        let lines = result.output.split(separator: "\n")
        let line = try #require(lines.last(where: { $0.hasPrefix("RESULT ") }), "no RESULT line in: \(result.output)\n\(result.errors)")
        let figures = try JSONDecoder().decode([String: Figures].self, from: Data(line.dropFirst("RESULT ".count).utf8))
        let naive = try #require(figures["naive"])
        let originals = try #require(figures["kit-originals"])
        let kit = try #require(figures["kit"])

        #expect(naive.cellAppearances > 30 && kit.cellAppearances > 30)
        #expect(naive.requests > 0 && originals.requests > 0 && kit.requests > 0)
        #expect(kit.wrongImages == 0)
        #expect(originals.wrongImages == 0)
        #expect(naive.wrongImages > 0, "the naive queue should fall behind and land images on reused cells")
        #expect(kit.bytesDownloaded < naive.bytesDownloaded)
        print("scroll: wrong images naive \(naive.wrongImages), kit-originals \(originals.wrongImages), kit \(kit.wrongImages); "
            + "bytes naive \(naive.bytesDownloaded), kit-originals \(originals.bytesDownloaded), kit \(kit.bytesDownloaded)")
    }
}
