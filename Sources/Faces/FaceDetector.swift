import CFaceShim
import Imaging
import ThumbdProtocol

/// Finds frontal faces with OpenCV's Haar cascades (`CFaceShim`), in a copy of the image
/// libvips makes at most `previewSide` pixels on its longer side (auto-rotated, first frame):
/// the detector never sees a large image, and its time is bounded by that size. Faces smaller
/// than about 1/32 of the image's longer side are not found.
public struct FaceDetector: Sendable {
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
    static let minFaceSide: Int32 = 20
    /// Room for this many faces on the first try; a photograph with more is asked again.
    static let firstRoom = 64

    public let cascades: String

    /// Loads the cascades (on this thread; each worker thread loads its own set the first time
    /// it detects), so that a missing or broken file stops the start, not a request.
    public init(cascades: String = FaceDetector.defaultCascades) throws(ImagingError) {
        var err: UnsafeMutablePointer<CChar>?
        guard fd_check_cascades(cascades, &err) == 0 else { throw .faceDetectionFailed(Self.message(err)) }
        self.cascades = cascades
    }

    /// The faces of encoded bytes, largest first, in the pixels of the image after EXIF
    /// orientation (the size `ImageHeader.orientedSize` gives). An image over `maxPixels` is
    /// refused from its header, as a transform is. Decodes and detects: a worker thread calls it.
    public func faces(in data: [UInt8], maxPixels: Int) throws(ImagingError) -> [PixelRect] {
        let header = try ImageTransformer.checkedHeader(data, maxPixels: maxPixels)
        let (width, height) = header.orientedSize
        let preview = try ImagePreview.make(data, maxSide: Self.previewSide)
        // Every face, however many: a redaction must hide them all.
        var found = [fd_face](repeating: fd_face(), count: Self.firstRoom)
        var count: Int32 = 0
        while true {
            var err: UnsafeMutablePointer<CChar>?
            count = preview.rgba.withUnsafeBufferPointer { pixels in
                fd_detect_faces(pixels.baseAddress, Int32(preview.width), Int32(preview.height), cascades, Self.minFaceSide,
                                &found, Int32(found.count), &err)
            }
            guard count >= 0 else { throw .faceDetectionFailed(Self.message(err)) }
            if Int(count) <= found.count { break }
            found = [fd_face](repeating: fd_face(), count: Int(count))
        }
        let sx = Double(width) / Double(preview.width), sy = Double(height) / Double(preview.height)
        return found.prefix(Int(count)).map { face in
            let x = Int((Double(face.x) * sx).rounded()), y = Int((Double(face.y) * sy).rounded())
            return PixelRect(x: x, y: y, width: min(width - x, Int((Double(face.width) * sx).rounded())),
                             height: min(height - y, Int((Double(face.height) * sy).rounded())))
        }
    }

    private static func message(_ err: UnsafeMutablePointer<CChar>?) -> String {
        guard let err else { return "unknown OpenCV error" }
        defer { fd_free(err) }
        return String(cString: err)
    }
}
