import Foundation

/// Video clips the real `ffmpeg` command makes at test time: solid-colour segments of known
/// lengths, so the frame at a time has a known colour. Shared by the decoder's tests and the
/// server's.
public enum TestClips {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Codecs as ffmpeg's encoders take them, with the options that keep them fast.
    public static let h264 = (codec: "libx264", container: "mp4", extra: ["-preset", "ultrafast"])
    public static let hevc = (codec: "libx265", container: "mp4", extra: ["-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "log-level=error"])
    public static let vp9 = (codec: "libvpx-vp9", container: "webm", extra: ["-deadline", "realtime", "-cpu-used", "8"])
    public static let vp8 = (codec: "libvpx", container: "webm", extra: ["-deadline", "realtime", "-cpu-used", "8"])
    public static let av1 = (codec: "libaom-av1", container: "webm", extra: ["-cpu-used", "8", "-row-mt", "1"])

    /// One segment a colour (an ffmpeg colour name: red, lime, blue, black...) for `seconds`
    /// each, `width` x `height` at 25 frames a second, a keyframe each second. `noise` (0-100)
    /// adds grain that changes every frame, so the clip weighs what a camera's would.
    public static func segments(_ colours: [String] = ["red", "lime", "blue"], seconds: Double = 1, width: Int = 160, height: Int = 120,
                                noise: Int = 0, codec: String = h264.codec, container: String = h264.container,
                                extra: [String] = h264.extra) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-clip-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("clip.\(container)").path
        var arguments = ["-hide_banner", "-loglevel", "error"]
        for colour in colours { arguments += ["-f", "lavfi", "-i", "color=c=\(colour):s=\(width)x\(height):r=25:d=\(seconds)"] }
        let inputs = colours.indices.map { "[\($0)]" }.joined()
        let grain = noise > 0 ? ",noise=alls=\(noise):allf=t+u" : ""
        arguments += ["-filter_complex", "\(inputs)concat=n=\(colours.count):v=1:a=0\(grain),format=yuv420p", "-c:v", codec, "-g", "25"]
            + extra + [output]
        let result = try runProgram("/usr/bin/ffmpeg", arguments, timeout: 120)
        guard result.status == 0 else { throw Failed(description: "ffmpeg failed: \(result.errors)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// An MP4 whose track header carries the display matrix of a quarter turn clockwise, as
    /// phones write for portrait video. (ffmpeg 5.1 no longer writes `-metadata rotate=`, so
    /// the matrix is written into the `tkhd` box itself.)
    public static func quarterTurned(_ mp4: [UInt8]) -> [UInt8] {
        var bytes = mp4
        guard let box = find("tkhd", in: bytes), bytes[box + 4] == 0 else { return bytes }
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

    /// The MP4 with its sample entry's codec renamed `zzzz`: a codec nobody decodes.
    public static func unknownCodec(_ mp4: [UInt8]) -> [UInt8] {
        var bytes = mp4
        guard let stsd = find("stsd", in: bytes), let entry = find("avc1", in: bytes, from: stsd) else { return bytes }
        bytes.replaceSubrange(entry..<(entry + 4), with: Array("zzzz".utf8))
        return bytes
    }

    /// Where `name` first occurs in `bytes` at or after `start`.
    public static func find(_ name: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        let needle = Array(name.utf8)
        guard bytes.count >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0] == needle[0] && Array(bytes[$0..<($0 + needle.count)]) == needle }
    }
}
