import Cache
import Foundation
import Imaging
import ThumbdProtocol

/// The faces found in one source version (or one still of it), largest first, in its pixels
/// after orientation, as the local tiers keep them beside its thumbnails.
package struct FoundFaces: Sendable, Equatable {
    package var boxes: [DetectedFace]
    /// The source version's modification time, as its thumbnails carry it.
    package var lastModified: Int

    package init(boxes: [DetectedFace], lastModified: Int) {
        self.boxes = boxes
        self.lastModified = lastModified
    }

    /// The tiers hold keyed entries: the boxes as a JSON list in `DetectedFace`'s own coding
    /// (`PixelRect`'s fields and a score, which entries of earlier builds lack), under
    /// a content type no thumbnail has. The ETag is never served; `f` is what earlier builds
    /// wrote.
    static let contentType = "application/vnd.thumbd.faces"

    var entry: CachedVariant {
        CachedVariant(bytes: (try? JSONEncoder().encode(boxes)).map(Array.init) ?? [], contentType: Self.contentType,
                      etag: "f", lastModified: lastModified)
    }

    /// Nil for an entry that is not a list of boxes: the faces are found again.
    init?(entry: CachedVariant) {
        guard entry.contentType == Self.contentType,
              let boxes = try? JSONDecoder().decode([DetectedFace].self, from: Data(entry.bytes)) else { return nil }
        self.init(boxes: boxes, lastModified: entry.lastModified)
    }
}
