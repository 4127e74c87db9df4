import Imaging
import ThumbdProtocol
import Video

/// What a video's thumbnails are made from: one frame of it (the poster at `t`) or a few
/// keyframes spread over it (the `anim=1` preview), decoded by FFmpeg and handed on as an
/// image source, so every image parameter applies to them.
package struct VideoStills: Sendable {
    package var limits: VideoDecoder.Limits
    /// Frames of a preview, and how long each is shown.
    package var previewFrames = 8
    package var previewDelay = 500
    /// Longest side of a preview's frames before the pipeline resizes them (it never needs more:
    /// previews are grid-sized).
    package var previewSide = 640

    package init(limits: VideoDecoder.Limits) {
        self.limits = limits
    }

    /// Which still a thumbnail needs; thumbnails asking for the same one share one decode.
    package enum Kind: Hashable, Sendable {
        case poster(VideoTime?)
        case preview
    }

    package static func kind(of options: TransformOptions) -> Kind {
        options.keepsFrames ? .preview : .poster(options.time)
    }

    /// The poster when no `t` is given: 1 s in, or 10% of a clip shorter than 10 s; when that
    /// frame is black (a fade-in), the first of 25% and 50% that is not.
    static let defaultSeconds = 1.0
    static let laterFractions = [0.25, 0.5]

    /// The still's bytes (an image source: `FrameStill`) and what the video is. `duration`, when
    /// already known (probed), picks the default poster's time before any frame is decoded.
    package func still(_ kind: Kind, from reader: VideoReader, duration: Double? = nil) throws(ImagingOrVideoError)
        -> (bytes: [UInt8], info: VideoInfo) {
        switch kind {
        case .poster(let time): return try poster(reader, at: time, duration: duration)
        case .preview: return try preview(reader)
        }
    }

    private func poster(_ reader: VideoReader, at time: VideoTime?, duration known: Double?) throws(ImagingOrVideoError)
        -> (bytes: [UInt8], info: VideoInfo) {
        let short = { (duration: Double?) in duration.map { $0 < 10 * Self.defaultSeconds } ?? false }
        let first: VideoDecoder.Moment = time.map(Self.moment) ?? (short(known) ? .fraction(0.1) : .seconds(Self.defaultSeconds))
        var (frame, info) = try decode(reader, at: first)
        if time == nil {
            if known == nil, short(info.duration) {
                (frame, info) = try decode(reader, at: .fraction(0.1))
            }
            var fractions = Self.laterFractions[...]
            while FrameStill.isBlack(rgb: frame.rgb, width: frame.width, height: frame.height), let next = fractions.popFirst() {
                let later = try decode(reader, at: .fraction(next))
                if !FrameStill.isBlack(rgb: later.frame.rgb, width: later.frame.width, height: later.frame.height) { frame = later.frame }
            }
        }
        do {
            return (try FrameStill.tiff(rgb: frame.rgb, width: frame.width, height: frame.height, rotation: info.rotation), info)
        } catch {
            throw .imaging(error)
        }
    }

    /// `previewFrames` keyframes, one from each equal part of the clip (no decoding forward:
    /// a keyframe alone decodes), each shrunk to `previewSide`, as an animation.
    private func preview(_ reader: VideoReader) throws(ImagingOrVideoError) -> (bytes: [UInt8], info: VideoInfo) {
        var keyframes = limits
        keyframes.maxDecodedFrames = 1
        var frames: [VideoFrame] = []
        var info: VideoInfo?
        for index in 0..<previewFrames {
            let fraction = (Double(index) + 0.5) / Double(previewFrames)
            let decoded: (frame: VideoFrame, info: VideoInfo)
            do { decoded = try VideoDecoder.frame(of: reader, at: .fraction(fraction), limits: keyframes) } catch { throw .video(error) }
            // A short clip's parts may share a keyframe: shown once.
            if let last = frames.last, last.shownAt == decoded.frame.shownAt, last.shownAt != nil { continue }
            frames.append(decoded.frame)
            info = decoded.info
        }
        guard let info, !frames.isEmpty else { throw .video(.broken("no frame of the video could be decoded")) }
        do {
            let bytes = try FrameStill.animation(frames.map { ($0.rgb, $0.width, $0.height) }, rotation: info.rotation,
                                                 maxSide: previewSide, delay: previewDelay)
            return (bytes, info)
        } catch {
            throw .imaging(error)
        }
    }

    private func decode(_ reader: VideoReader, at moment: VideoDecoder.Moment) throws(ImagingOrVideoError) -> (frame: VideoFrame, info: VideoInfo) {
        do { return try VideoDecoder.frame(of: reader, at: moment, limits: limits) } catch { throw .video(error) }
    }

    static func moment(_ time: VideoTime) -> VideoDecoder.Moment {
        switch time {
        case .seconds(let s): .seconds(s)
        case .percent(let p): .fraction(p / 100)
        }
    }

    /// Working memory a still of a `width` x `height` video holds at its peak: the decoder's
    /// frames (about eight in YUV 4:2:0), the RGB frame, libvips' copy of it and the TIFF; a
    /// preview also holds each keyframe's RGB until its frames are shrunk and joined.
    package func estimate(_ kind: Kind, width: Int, height: Int) -> Int {
        let poster = width * height * (8 * 3 / 2 + 3 * 3)
        guard case .preview = kind else { return poster }
        return poster + previewFrames * width * height * 3
    }
}

/// A still failed in FFmpeg or in libvips.
package enum ImagingOrVideoError: Error, Sendable {
    case video(VideoError)
    case imaging(ImagingError)
}
