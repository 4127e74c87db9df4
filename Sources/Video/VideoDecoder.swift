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

/// FFmpeg (through `CVideoShim`) over a video's bytes (`VideoReader`: only the parts FFmpeg
/// asks for are read). Blocking: worker threads call it.
public enum VideoDecoder {
    public struct Limits: Sendable {
        public var maxPixels: Int
        /// Frames decoded from the keyframe before the time asked, at most.
        public var maxDecodedFrames: Int
        /// Packets read in all: an endless or padded stream stops here.
        public var maxPackets: Int
        /// Seconds the video may last (by its container); nil: any.
        public var maxDuration: Double?
        /// Wall-clock seconds one call may take; nil: no bound.
        public var maxSeconds: Double?

        public init(maxPixels: Int, maxDecodedFrames: Int = 600, maxPackets: Int = 20_000, maxDuration: Double? = nil,
                    maxSeconds: Double? = nil) {
            self.maxPixels = maxPixels
            self.maxDecodedFrames = maxDecodedFrames
            self.maxPackets = maxPackets
            self.maxDuration = maxDuration
            self.maxSeconds = maxSeconds
        }
    }

    /// When in the video a frame is taken.
    public enum Moment: Sendable, Equatable {
        case seconds(Double)
        /// A fraction 0...1 of the duration (the start when it is unknown).
        case fraction(Double)
    }

    public static func probe(_ bytes: [UInt8]) throws(VideoError) -> VideoInfo {
        try probe(VideoReader(bytes: bytes))
    }

    /// What the video is; `limits` bound the frames the stream probe decodes and the time, and
    /// refuse a stream over the pixel limit or without a frame size.
    public static func probe(_ reader: VideoReader, limits: Limits? = nil) throws(VideoError) -> VideoInfo {
        var info = vd_info()
        var message = [CChar](repeating: 0, count: 256)
        var limitsC = limits.map(cLimits)
        let status = withCReader(reader) { reader in
            if limitsC != nil { return vd_probe(reader, &limitsC!, &info, &message, message.count) }
            return vd_probe(reader, nil, &info, &message, message.count)
        }
        guard status == VD_OK else { throw VideoError(status, message: text(message)) }
        return made(info)
    }

    /// The frame shown at `seconds` (the last one when it is past the end).
    public static func frame(of bytes: [UInt8], at seconds: Double, limits: Limits) throws(VideoError) -> VideoFrame {
        try frame(of: VideoReader(bytes: bytes), at: .seconds(seconds), limits: limits).frame
    }

    /// The frame shown at `moment`, and what the video is (one opening of the container).
    public static func frame(of reader: VideoReader, at moment: Moment, limits: Limits) throws(VideoError) -> (frame: VideoFrame, info: VideoInfo) {
        var limitsC = cLimits(limits)
        let (seconds, fraction): (Double, Double) = switch moment {
        case .seconds(let s): (s, -1)
        case .fraction(let f): (0, min(1, max(0, f)))
        }
        var info = vd_info()
        var rgb: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var shownAt = -1.0
        var message = [CChar](repeating: 0, count: 256)
        let status = withCReader(reader) {
            vd_frame($0, seconds, fraction, &limitsC, &info, &rgb, &width, &height, &shownAt, &message, message.count)
        }
        guard status == VD_OK, let rgb else { throw VideoError(status, message: text(message)) }
        defer { vd_free(rgb) }
        let pixels = Array(UnsafeBufferPointer(start: rgb, count: Int(width) * Int(height) * 3))
        return (VideoFrame(rgb: pixels, width: Int(width), height: Int(height), shownAt: shownAt >= 0 ? shownAt : nil), made(info))
    }

    private static func cLimits(_ limits: Limits) -> vd_limits {
        vd_limits(max_pixels: Int64(limits.maxPixels), max_decoded_frames: Int32(limits.maxDecodedFrames),
                        max_packets: Int64(limits.maxPackets), max_duration: limits.maxDuration ?? 0, max_seconds: limits.maxSeconds ?? 0)
    }

    private static func made(_ info: vd_info) -> VideoInfo {
        VideoInfo(duration: info.duration >= 0 ? info.duration : nil, width: Int(info.width), height: Int(info.height),
                  rotation: Int(info.rotation), frameRate: info.frame_rate > 0 ? info.frame_rate : nil,
                  codec: field(info.codec), container: field(info.container))
    }

    /// `body` with a C reader whose calls go to `reader` (alive for the call).
    private static func withCReader<R>(_ reader: VideoReader, _ body: (UnsafePointer<vd_reader>) -> R) -> R {
        let opaque = Unmanaged.passUnretained(reader).toOpaque()
        var c = vd_reader(opaque: opaque, read_at: { opaque, offset, buffer, size in
            let reader = Unmanaged<VideoReader>.fromOpaque(opaque!).takeUnretainedValue()
            guard let n = reader.read(at: Int(offset), into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size))) else { return -1 }
            return Int32(n)
        }, length: Int64(reader.length))
        return withExtendedLifetime(reader) { body(&c) }
    }

    /// A NUL-terminated message the shim wrote into `message`.
    private static func text(_ message: [CChar]) -> String { message.withUnsafeBytes(decoded) }

    /// A NUL-terminated C array field of a struct (imported as a tuple).
    private static func field<T>(_ tuple: T) -> String { withUnsafeBytes(of: tuple, decoded) }

    private static func decoded(_ raw: UnsafeRawBufferPointer) -> String {
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
