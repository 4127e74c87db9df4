import CVideoShim

/// What a video is, from its container and its video stream.
public struct VideoInfo: Equatable, Sendable {
    /// Seconds; nil when the container does not say.
    public var duration: Double?
    /// As coded, before `rotation`.
    public var width: Int
    public var height: Int
    /// Clockwise degrees that show it upright: 0, 90, 180 or 270.
    public var rotation: Int
    /// Frames a second on average; nil when unknown.
    public var frameRate: Double?
    /// FFmpeg's codec name: h264, hevc, vp8, vp9, av1, ...
    public var codec: String
    /// FFmpeg's demuxer name: "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", ...
    public var container: String
}

/// One decoded frame: packed RGB, as coded (the caller turns it by the video's rotation).
public struct VideoFrame: Sendable {
    public var rgb: [UInt8]
    public var width: Int
    public var height: Int
    /// Its time in seconds from the start of the stream.
    public var shownAt: Double?
}

/// FFmpeg (through `CVideoShim`) over the bytes of a video in memory. Blocking: worker threads
/// call it. Nothing but the bytes given is read.
public enum VideoDecoder {
    public struct Limits: Sendable {
        public var maxPixels: Int
        /// Frames decoded from the keyframe before the time asked, at most.
        public var maxDecodedFrames: Int
        /// Packets read in all: an endless or padded stream stops here.
        public var maxPackets: Int

        public init(maxPixels: Int, maxDecodedFrames: Int = 600, maxPackets: Int = 20_000) {
            self.maxPixels = maxPixels
            self.maxDecodedFrames = maxDecodedFrames
            self.maxPackets = maxPackets
        }
    }

    public static func probe(_ bytes: [UInt8]) throws(VideoError) -> VideoInfo {
        var info = tv_video_info()
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { tv_video_probe($0.baseAddress, $0.count, &info, &message, message.count) }
        guard status == TV_VIDEO_OK else { throw VideoError(status, message: text(message)) }
        return VideoInfo(duration: info.duration >= 0 ? info.duration : nil, width: Int(info.width), height: Int(info.height),
                         rotation: Int(info.rotation), frameRate: info.frame_rate > 0 ? info.frame_rate : nil,
                         codec: field(info.codec), container: field(info.container))
    }

    /// The frame shown at `seconds` (the last one when it is past the end).
    public static func frame(of bytes: [UInt8], at seconds: Double, limits: Limits) throws(VideoError) -> VideoFrame {
        var limitsC = tv_video_limits(max_pixels: Int64(limits.maxPixels), max_decoded_frames: Int32(limits.maxDecodedFrames),
                                      max_packets: Int64(limits.maxPackets))
        var rgb: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var shownAt = -1.0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer {
            tv_video_frame($0.baseAddress, $0.count, seconds, &limitsC, &rgb, &width, &height, &shownAt, &message, message.count)
        }
        guard status == TV_VIDEO_OK, let rgb else { throw VideoError(status, message: text(message)) }
        defer { tv_video_free(rgb) }
        let pixels = Array(UnsafeBufferPointer(start: rgb, count: Int(width) * Int(height) * 3))
        return VideoFrame(rgb: pixels, width: Int(width), height: Int(height), shownAt: shownAt >= 0 ? shownAt : nil)
    }

    /// A NUL-terminated message the shim wrote into `message`.
    private static func text(_ message: [CChar]) -> String { message.withUnsafeBytes(decoded) }

    /// A NUL-terminated C array field of a struct (imported as a tuple).
    private static func field<T>(_ tuple: T) -> String { withUnsafeBytes(of: tuple, decoded) }

    private static func decoded(_ raw: UnsafeRawBufferPointer) -> String {
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
