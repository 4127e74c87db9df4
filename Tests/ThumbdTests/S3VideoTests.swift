import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// Videos in a bucket (issue 37): a poster reads the ranges its frame needs, never the whole
/// object, even one over `limits.max_source_bytes`; the original plays with Range, passed
/// through; the facts come from the same ranges. (Part of `S3LibraryTests`, on its store.)
extension S3LibraryTests {
    /// 16 s of grainy 640 x 360 H.264 (about 20 MB), two seconds a colour: red, lime, blue,
    /// white, black, yellow, cyan, magenta.
    static let bigClip = Result {
        try TestClips.segments(["red", "lime", "blue", "white", "black", "yellow", "cyan", "magenta"], seconds: 2,
                               width: 640, height: 360, noise: 20)
    }

    @Test func aPosterReadsOnlyTheRangesItsFrameNeeds() throws {
        let clip = try Self.bigClip.get()
        let bucket = try store.makeBucket()
        try store.put(bucket, ["clip.mp4": clip])
        // Whole, the object would be over the limit: read in parts, it is a video like any other.
        let f = try S3LibraryFixture(store: store, bucket: bucket) { $0.limits.maxSourceBytes = 4 << 20 }
        #expect(clip.count > 12 << 20, "\(clip.count) bytes")
        let poster = try f.get("/img/clip.mp4?w=160&t=11&fm=png")
        #expect(poster.status == 200, "\(poster.status) \(poster.text)")
        let image = try VipsImage.decode(poster.body)
        let centre = try image.pixel(x: 80, y: 45)
        #expect(centre[0] > 200 && centre[1] > 200 && centre[2] < 60, "yellow at 11 s: \(centre)")
        let fetched = try #require(try f.metrics().value("thumbd_video_source_bytes_total", [:]))
        // 3.5 MB of 21 MB when measured: the first block, the index at the end, the blocks from the keyframe at 11 s.
        #expect(fetched > 0 && fetched < Double(clip.count) / 3, "the poster cost \(fetched) of \(clip.count) bytes")
        // The facts read the ranges the default poster needs (1 s in: red).
        let info = try #require(try JSONSerialization.jsonObject(with: Data(f.get("/v1/images/clip.mp4").body)) as? [String: Any])
        #expect(info["codec"] as? String == "h264" && info["width"] as? Int == 640 && abs((info["duration"] as? Double ?? 0) - 16) < 0.2,
                "\(info)")
        // The original plays: a range passed through, with its video type.
        let part = try f.get("/img/clip.mp4", ["Range: bytes=5000000-5000999"])
        #expect(part.status == 206 && part.body == Array(clip[5_000_000..<5_001_000]) && part.header("Content-Type") == "video/mp4")
        // The listing has it, read in parts too.
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(f.get("/v1/images").body)) as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["format"] as? String == "mp4", "\(listed)")
    }
}
