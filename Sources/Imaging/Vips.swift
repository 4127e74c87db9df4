import CVipsShim
import Foundation

/// libvips, started once per process.
public enum Vips {
    private static let started: Bool = tv_init("thumbd") == 0

    /// Starts libvips if needed; false if it could not start.
    @discardableResult
    public static func start() -> Bool { started }

    public static var version: String {
        start()
        return String(cString: tv_version())
    }
}

/// Why an image could not be made.
public enum ImagingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a format libvips reads (or one thumbd refuses to read): 415.
    case unsupportedFormat
    /// The header declares more pixels than allowed: 422, before any decoding.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// An animation with more frames than allowed (`anim=1`): 422, before any decoding.
    case tooManyFrames(frames: Int, limit: Int)
    /// What the options make of this source (after resizing, rotation, padding, every frame)
    /// is over the output limits: 422, before any decoding.
    case outputTooLarge(width: Int, height: Int, detail: String)
    /// Truncated or corrupt data: 422.
    case undecodable(String)
    /// Encoding failed: 500.
    case encodingFailed(String)
    /// Stopped while it ran, because nobody wanted it any more (`StopCheck`): 503.
    case cancelled
    /// A parameter cannot apply to this source (`rect` outside it, a `page` it has not) or its
    /// output (`mb` below what the lowest quality gives): 400 naming the parameter.
    case badParameter(name: String, detail: String)
    /// The face detector failed (its cascades cannot be read, OpenCV threw): 500.
    case faceDetectionFailed(String)
    /// No renderer process could be started for an SVG or PDF (a deployment's fault): 500.
    case rendererUnavailable(String)

    public var description: String {
        switch self {
        case .unsupportedFormat: "not an image format thumbd can read"
        case .tooManyPixels(let w, let h, let limit): "the image is \(w)x\(h), over the limit of \(limit) pixels"
        case .tooManyFrames(let frames, let limit): "the animation has \(frames) frames, over the limit of \(limit)"
        case .outputTooLarge(let w, let h, let detail): "the output would be \(w)x\(h), \(detail)"
        case .undecodable(let detail): "the image cannot be decoded: \(detail)"
        case .encodingFailed(let detail): "the image cannot be encoded: \(detail)"
        case .cancelled: "the transform was stopped: nobody waited for it any more"
        case .badParameter(_, let detail): detail
        case .faceDetectionFailed(let detail): "faces cannot be found: \(detail)"
        case .rendererUnavailable(let detail): "SVG and PDF cannot be drawn: \(detail)"
        }
    }
}

/// Takes a g_malloc'd error string from the shim.
func takeMessage(_ err: UnsafeMutablePointer<CChar>?) -> String {
    guard let err else { return "unknown libvips error" }
    defer { tv_free(err) }
    let text = String(cString: err).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? "unknown libvips error" : text
}

