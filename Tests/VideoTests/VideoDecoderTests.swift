import Foundation
import Testing
import TestSupport
import Video

/// FFmpeg through `CVideoShim`, on clips the real `ffmpeg` command makes at test time: a red
/// second, a green one and a blue one, in several codecs and containers, so the frame at a
/// time has the colour of its segment; rotation metadata; hostile bytes.
@Suite struct VideoDecoderTests {
    static let limits = VideoDecoder.Limits(maxPixels: 40_000_000)

    /// A clip of three one-second segments (red, green, blue), 160 x 120 at 25 frames a second,
    /// a keyframe each second; `codec` and `container` as ffmpeg names them.
    static func segments(_ codec: String, _ container: String, extra: [String] = []) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-video-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("clip.\(container)").path
        var arguments = ["-hide_banner", "-loglevel", "error"]
        for colour in ["red", "lime", "blue"] { arguments += ["-f", "lavfi", "-i", "color=c=\(colour):s=160x120:r=25:d=1"] }
        arguments += ["-filter_complex", "[0][1][2]concat=n=3:v=1:a=0,format=yuv420p", "-c:v", codec, "-g", "25"] + extra + [output]
        let result = try runProgram("/usr/bin/ffmpeg", arguments, timeout: 120)
        guard result.status == 0 else { throw VideoError.broken("ffmpeg failed: \(result.errors)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// The colour in the middle of a frame.
    static func centre(_ frame: VideoFrame) -> (Int, Int, Int) {
        let i = ((frame.height / 2) * frame.width + frame.width / 2) * 3
        return (Int(frame.rgb[i]), Int(frame.rgb[i + 1]), Int(frame.rgb[i + 2]))
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

    /// An MP4 whose track header carries the display matrix of a quarter turn clockwise, as
    /// phones write for portrait video. (ffmpeg 5.1 no longer writes `-metadata rotate=`, so
    /// the test writes the matrix into the `tkhd` box itself.)
    static func quarterTurned(_ mp4: [UInt8]) -> [UInt8] {
        var bytes = mp4
        guard let box = (0..<(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == Array("tkhd".utf8) }),
              bytes[box + 4] == 0 else { return bytes }
        // Version 0: flags, creation, modification, track, reserved, duration (24 bytes), then
        // reserved, layer, group, volume, reserved (16), then the matrix: nine 32-bit numbers.
        let matrix: [Int32] = [0, 65536, 0, -65536, 0, 0, 0, 0, 1 << 30]
        var offset = box + 4 + 24 + 16
        for value in matrix {
            withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
            offset += 4
        }
        return bytes
    }

    @Test func rotationMetadataIsRead() throws {
        let bytes = Self.quarterTurned(try Self.segments("libx264", "mp4", extra: ["-preset", "ultrafast"]))
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
    }
}
