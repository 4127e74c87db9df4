import Cache
import Foundation
import Imaging
import Locking
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
    /// Versions being detected, by key text, each with the lock its detection holds.
    private let running = Locked<[String: Locked<[PixelRect]?>]>([:])

    package init(detector: FaceDetector, store: VariantStore, maxPixels: Int) {
        self.detector = detector
        self.maxPixels = maxPixels
        self.store = store
    }

    /// The faces of `name` at `version` whose bytes are `bytes`, largest first, in the source's
    /// pixels after orientation. Blocking (it may detect): a worker thread calls it.
    package func faces(of name: SourceName, version: SourceVersion, bytes: [UInt8]) -> Result<[PixelRect], ImagingError> {
        let key = Self.key(name, version)
        if let kept = kept(key) { return .success(kept) }
        let slot = running.withLock { slots in
            if let slot = slots[key.text] { return slot }
            let slot = Locked<[PixelRect]?>(nil)
            slots[key.text] = slot
            return slot
        }
        defer { running.withLock { slots in if slots[key.text] === slot { slots[key.text] = nil } } }
        return slot.withLock { found -> Result<[PixelRect], ImagingError> in
            if let found { return .success(found) }
            // Stored by a detection that finished just before this slot was made.
            if let kept = kept(key) {
                found = kept
                return .success(kept)
            }
            do throws(ImagingError) {
                let faces = try detector.faces(in: bytes, maxPixels: maxPixels)
                detections.increment()
                store.store(key, CachedVariant(bytes: Self.encoded(faces), contentType: Self.contentType, etag: "f",
                                               lastModified: version.lastModified))
                found = faces
                return .success(faces)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The faces of a source's current version: those kept when its version is known without
    /// the bytes (a library file's, a HEAD to the store), so a repeated info request reads no
    /// original; else from the loaded bytes. Blocking: a worker thread calls it.
    package func faces(of source: some ThumbnailSource) -> Result<[PixelRect], any Error> {
        let known: SourceVersion?
        switch source.knownVersion.map(Result.success) ?? source.checkedVersion() {
        case .success(let version): known = version
        case .failure(let failure): return .failure(failure)
        case nil: known = nil
        }
        if let known, let kept = kept(Self.key(source.name, known)) { return .success(kept) }
        switch source.load() {
        case .success(let loaded): return faces(of: source.name, version: loaded.version, bytes: loaded.bytes).mapError { $0 }
        case .failure(let failure): return .failure(failure)
        }
    }

    private func kept(_ key: CacheKey) -> [PixelRect]? {
        store.variant(key).flatMap { $0.variant.contentType == Self.contentType ? Self.decoded($0.variant.bytes) : nil }
    }

    /// After the source's prefix and version, as a thumbnail's key, but never equal to one
    /// (those go on with their options).
    static func key(_ name: SourceName, _ version: SourceVersion) -> CacheKey {
        CacheKey("\(name.text)|\(version.tag.text)|faces1")
    }

    static let contentType = "application/vnd.thumbd.faces"

    /// The boxes as a JSON list, in `PixelRect`'s own coding.
    static func encoded(_ faces: [PixelRect]) -> [UInt8] {
        (try? JSONEncoder().encode(faces)).map(Array.init) ?? []
    }

    /// nil for bytes that are not such a list (another format): the faces are found again.
    static func decoded(_ bytes: [UInt8]) -> [PixelRect]? {
        try? JSONDecoder().decode([PixelRect].self, from: Data(bytes))
    }
}
