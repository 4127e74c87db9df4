import Cache
import Faces
import Imaging
import ThumbdProtocol

/// The faces of each source version, found once (`FaceDetector`) and kept beside its
/// thumbnails in the memory and disk tiers, under the source's key prefix (so a purge of the
/// source removes them too): twenty sizes of one photo, `crop=face` or `redact=face`, and
/// its info cost one detection, after a restart too. Requests that need the faces of one
/// version while they are being found wait for that detection.
package final class SourceFaces: Sendable {
    package let detector: FaceDetector
    /// Sources over this many pixels are refused from their header (`limits.max_source_pixels`).
    package let maxPixels: Int
    /// Detections run: each one a version no tier held faces for.
    package let detections = Counter()
    private let store: VariantStore
    /// One detection per faces key at a time; the others wait for it.
    private let running = SingleFlight<Result<[DetectedFace], ImagingError>>()

    package init(detector: FaceDetector, store: VariantStore, maxPixels: Int) {
        self.detector = detector
        self.maxPixels = maxPixels
        self.store = store
    }

    /// The faces of `name` (or of one still of it) at `version` whose bytes are `bytes`, largest
    /// first, in those pixels after orientation. Blocking (it may detect): a worker thread calls it.
    package func faces(of name: SourceName, still: LoadedSource.Still? = nil, version: SourceVersion,
                       bytes: [UInt8]) -> Result<[DetectedFace], ImagingError> {
        let key = ThumbnailKeys.faces(name, still: still, version: version.tag, model: detector.keyTag)
        if let kept = store.faces(key) { return .success(kept.boxes) }
        return running.run(key.text) { [store, detector, maxPixels, detections] in
            // Kept by a detection that finished just before this one began.
            if let kept = store.faces(key) { return .success(kept.boxes) }
            do throws(ImagingError) {
                let boxes = try detector.faces(in: bytes, maxPixels: maxPixels)
                detections.increment()
                store.keep(FoundFaces(boxes: boxes, lastModified: version.lastModified), as: key)
                return .success(boxes)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The faces of a source's current version: those kept when its version is known without
    /// the bytes (a library file's, a HEAD to the store), so a repeated info request reads no
    /// original; else from the loaded bytes. Blocking: a worker thread calls it.
    package func faces(of source: some ThumbnailSource) -> Result<[DetectedFace], any Error> {
        let known: SourceVersion?
        switch source.knownVersion.map(Result.success) ?? source.checkedVersion() {
        case .success(let version): known = version
        case .failure(let failure): return .failure(failure)
        case nil: known = nil
        }
        if let known, let kept = store.faces(ThumbnailKeys.faces(source.name, still: nil, version: known.tag, model: detector.keyTag)) {
            return .success(kept.boxes)
        }
        switch source.load() {
        case .success(let loaded): return faces(of: source.name, version: loaded.version, bytes: loaded.bytes).mapError { $0 }
        case .failure(let failure): return .failure(failure)
        }
    }
}
