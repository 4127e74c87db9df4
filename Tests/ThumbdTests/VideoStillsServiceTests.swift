import Cache
import Clocks
import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// A video as a source under the test's control: its bytes whole (as `/proxy` gives them),
/// counted loads, and a gate that holds the first load.
final class VideoStubSource: ThumbnailSource, @unchecked Sendable {
    let name: SourceName
    let bytes: [UInt8]
    let loads = Counter()

    init(_ name: String, bytes: [UInt8]) {
        self.name = .remote(name)
        self.bytes = bytes
    }

    var knownVersion: SourceVersion? {
        SourceVersion(tag: VersionTag(.entityTag("v1")), format: .mp4, lastModified: 1_700_000_000, byteCount: bytes.count)
    }

    func load() -> Result<LoadedSource, ThumbnailFailure> {
        loads.increment()
        return .success(LoadedSource(version: knownVersion!, bytes: bytes, step: .read(0.001)))
    }
}

/// Thumbnails of one still share its decode: queued together (`output.shared_decode`), every
/// size asked of a poster at one time, and the preview, are each made from one still, and a
/// poster at another time from its own.
@Suite struct VideoStillsServiceTests {
    @Test func thumbnailsOfOneStillShareItsDecode() throws {
        let tests = ThumbnailServiceTests()
        let thumbnails = tests.service(workers: 1, sharesDecodes: true)
        // The one worker is held by another source while the video's thumbnails queue up.
        let blocker = StubSource("held", bytes: ThumbnailServiceTests.photo, gated: true)
        let held = Answers()
        thumbnails.make(try tests.request("w=50"), of: blocker, at: blocker.knownVersion, for: held.waiter())
        let video = VideoStubSource("clip", bytes: try TestClips.segments())
        let queries = ["w=80&t=1.5", "w=40&h=40&fit=cover&t=1.5", "w=120&fm=png&t=1.5", "w=80&t=2.5", "w=80&fm=webp&anim=1"]
        let answers = queries.map { _ in Answers() }
        for (query, answer) in zip(queries, answers) {
            thumbnails.make(try tests.request(query), of: video, at: video.knownVersion, for: answer.waiter())
        }
        blocker.gate.signal()
        for (query, answer) in zip(queries, answers) {
            guard case .variant = answer.wait(for: 1).first else {
                Issue.record("no variant for \(query)")
                return
            }
        }
        _ = held.wait(for: 1)
        // One load, three stills (the poster at 1.5 s, at 2.5 s, the preview), five thumbnails.
        #expect(video.loads.count == 1 && thumbnails.videoStills.count == 3, "\(video.loads.count) loads, \(thumbnails.videoStills.count) stills")
        #expect(thumbnails.transformsRun.count == 6)
    }
}
