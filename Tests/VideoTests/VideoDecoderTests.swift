import Foundation
import Testing
import TestSupport
@testable import Video

/// FFmpeg through `CVideoShim`, on clips the real `ffmpeg` command makes at test time: a red
/// second, a green one and a blue one, in several codecs and containers, so the frame at a
/// time has the colour of its segment; rotation metadata; hostile bytes.
@Suite struct VideoDecoderTests {
    static let limits = VideoDecoder.Limits(maxPixels: 40_000_000)

    /// A clip of three one-second segments (red, green, blue), 160 x 120 at 25 frames a second,
    /// a keyframe each second; `codec` and `container` as ffmpeg names them.
    static func segments(_ codec: String, _ container: String, extra: [String] = []) throws -> [UInt8] {
        try TestClips.segments(codec: codec, container: container, extra: extra)
    }

    /// The colour in the middle of a frame: the mean of a 9 x 9 block (grain averages out).
    static func centre(_ frame: VideoFrame) -> (Int, Int, Int) {
        var sum = (0, 0, 0)
        for y in (frame.height / 2 - 4)...(frame.height / 2 + 4) {
            for x in (frame.width / 2 - 4)...(frame.width / 2 + 4) {
                let i = (y * frame.width + x) * 3
                sum = (sum.0 + Int(frame.rgb[i]), sum.1 + Int(frame.rgb[i + 1]), sum.2 + Int(frame.rgb[i + 2]))
            }
        }
        return (sum.0 / 81, sum.1 / 81, sum.2 / 81)
    }

    static func near(_ colour: (Int, Int, Int), _ expected: (Int, Int, Int)) -> Bool {
        abs(colour.0 - expected.0) <= 24 && abs(colour.1 - expected.1) <= 24 && abs(colour.2 - expected.2) <= 24
    }

    static let clips: [(codec: String, container: String, extra: [String], name: String)] = [
        ("libx264", "mp4", ["-preset", "ultrafast"], "h264"),
        ("libx265", "mp4", ["-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "log-level=error"], "hevc"),
        ("libvpx-vp9", "webm", ["-deadline", "realtime", "-cpu-used", "8"], "vp9"),
        ("libvpx", "webm", ["-deadline", "realtime", "-cpu-used", "8"], "vp8"),
        ("libaom-av1", "webm", ["-cpu-used", "8", "-row-mt", "1"], "av1"),
    ]

    @Test(arguments: clips.indices)
    func theFrameAtATimeHasTheColourOfItsSegment(_ index: Int) throws {
        let clip = Self.clips[index]
        let bytes = try Self.segments(clip.codec, clip.container, extra: clip.extra)
        let info = try VideoDecoder.probe(bytes)
        #expect(info.codec == clip.name && info.width == 160 && info.height == 120 && info.rotation == 0)
        #expect(abs((info.duration ?? 0) - 3) < 0.1, "duration \(String(describing: info.duration))")
        #expect(abs((info.frameRate ?? 0) - 25) < 0.5 || clip.container == "webm", "frame rate \(String(describing: info.frameRate))")
        let expected: [(Double, (Int, Int, Int))] = [(0, (255, 0, 0)), (0.5, (255, 0, 0)), (1.5, (0, 255, 0)), (1.96, (0, 255, 0)),
                                                     (2.5, (0, 0, 255)), (10, (0, 0, 255))]
        for (seconds, colour) in expected {
            let frame = try VideoDecoder.frame(of: bytes, at: seconds, limits: Self.limits)
            #expect(frame.width == 160 && frame.height == 120)
            #expect(Self.near(Self.centre(frame), colour), "\(clip.name) at \(seconds) s: \(Self.centre(frame))")
        }
        // The frame shown at a time is the one at or before it.
        let frame = try VideoDecoder.frame(of: bytes, at: 1.5, limits: Self.limits)
        #expect(abs((frame.shownAt ?? -1) - 1.48) < 0.05, "shown at \(String(describing: frame.shownAt))")
    }

    @Test func rotationMetadataIsRead() throws {
        let bytes = TestClips.quarterTurned(try Self.segments("libx264", "mp4", extra: ["-preset", "ultrafast"]))
        let info = try VideoDecoder.probe(bytes)
        #expect(info.rotation == 90 && info.width == 160 && info.height == 120, "\(info)")
        // The frame comes as coded: turning it is the caller's.
        let frame = try VideoDecoder.frame(of: bytes, at: 1.5, limits: Self.limits)
        #expect(frame.width == 160 && frame.height == 120 && Self.near(Self.centre(frame), (0, 255, 0)))
    }

    @Test func hostileBytesAreTheirProblemNeverACrash() throws {
        let bytes = try Self.segments("libx264", "mp4", extra: ["-preset", "ultrafast"])
        // Not a video.
        #expect(throws: VideoError.self) { try VideoDecoder.probe(Array("just some text, not a container".utf8)) }
        #expect(throws: VideoError.self) { try VideoDecoder.frame(of: [], at: 0, limits: Self.limits) }
        // Frames over the pixel limit are refused before decoding.
        #expect(throws: VideoError.tooLarge("the video's frames are over the pixel limit")) {
            try VideoDecoder.frame(of: bytes, at: 1, limits: VideoDecoder.Limits(maxPixels: 100 * 100))
        }
        // Every truncation and a flipped byte every 97: a frame or a problem, within the limits.
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 23)) {
            _ = try? VideoDecoder.frame(of: Array(bytes.prefix(cut)), at: 1.5, limits: Self.limits)
        }
        var flipped = bytes
        for i in stride(from: 40, to: flipped.count, by: 97) { flipped[i] ^= 0x5A }
        _ = try? VideoDecoder.frame(of: flipped, at: 2.5, limits: Self.limits)
        // A stream read only up to its packet limit.
        #expect(throws: VideoError.self) {
            try VideoDecoder.frame(of: bytes, at: 2.5, limits: VideoDecoder.Limits(maxPixels: 40_000_000, maxPackets: 0))
        }
        // A duration over the limit, from the container's header.
        #expect(throws: VideoError.self) {
            try VideoDecoder.frame(of: VideoReader(bytes: bytes), at: .seconds(1), limits: VideoDecoder.Limits(maxPixels: 40_000_000, maxDuration: 2))
        }
        // A time limit already spent: FFmpeg's calls are interrupted, never a hang.
        do {
            _ = try VideoDecoder.frame(of: VideoReader(bytes: bytes), at: .seconds(2.5),
                                       limits: VideoDecoder.Limits(maxPixels: 40_000_000, maxSeconds: 1e-9))
            Issue.record("a spent time limit decoded a frame")
        } catch {
            #expect(error == .timedOut("the video took longer than its time limit to decode"), "\(error)")
        }
        // A codec nobody decodes: unsupported, not broken.
        #expect(throws: VideoError.unsupported("no decoder for the video's codec")) {
            try VideoDecoder.frame(of: TestClips.unknownCodec(bytes), at: 1, limits: Self.limits)
        }
        // A reader that fails past its first kilobyte (handing out 512 bytes a read): the read's problem.
        let failing = VideoReader(length: bytes.count) { offset, buffer in
            offset < 1024 ? VideoReader(bytes: bytes).readForTests(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(512))) : nil
        }
        do {
            _ = try VideoDecoder.frame(of: failing, at: .seconds(2.5), limits: Self.limits)
            Issue.record("a failing reader decoded a frame")
        } catch {
            #expect(error == .readFailed("the video's bytes could not be read"), "\(error)")
        }
    }

    /// A video read where FFmpeg asks: a frame of a long clip costs a small part of it, a
    /// percentage picks the time from the duration, and the reader counts its bytes. (Library
    /// files' reader, `VideoReader(file:length:)`, is the server's: `VideoRouteTests`.)
    @Test func aFrameReadsOnlyWhatItNeeds() throws {
        let bytes = try TestClips.segments(["red", "lime", "blue", "white", "black", "yellow", "cyan", "magenta"], seconds: 2,
                                           width: 320, height: 240, noise: 12)
        let reader = VideoReader(bytes: bytes)
        let (frame, info) = try VideoDecoder.frame(of: reader, at: .fraction(0.3), limits: Self.limits)
        // 30% of 16 s is 4.8 s: the blue segment.
        #expect(abs((info.duration ?? 0) - 16) < 0.1 && Self.near(Self.centre(frame), (0, 0, 255)), "\(info) \(Self.centre(frame))")
        #expect(reader.bytesRead > 0 && reader.bytesRead < bytes.count, "read \(reader.bytesRead) of \(bytes.count)")
    }
}

extension VideoReader {
    /// The package-internal read, for a test's reader built over another.
    func readForTests(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int? { read(at: offset, into: buffer) }
}
