import Imaging
import Logging
import ThumbdProtocol

/// The faces a transform places (`crop=face`) or hides (`redact=face`), found once per source
/// version (or still) by `SourceFaces`; none for other options. A redaction fails without
/// them; a face crop becomes `attention`.
struct FaceStage: Sendable {
    /// Nil: no detector is configured.
    let faces: SourceFaces?
    let logger: Logger

    func faces(neededBy options: TransformOptions, of name: SourceName, from source: LoadedSource) -> Result<[PixelRect], ImagingError> {
        // Normalized options keep `crop=face` only with `fit=cover` and no `fp`.
        guard options.redact == .face || (options.crop == .face && options.page == 1) else { return .success([]) }
        guard let faces else {
            return options.redact == nil ? .success([]) : .failure(.faceDetectionFailed("face detection is not configured"))
        }
        let found = faces.faces(of: name, still: source.still, version: source.version, bytes: source.bytes)
        if case .failure(let error) = found, options.redact == nil {
            logger.warning("faces of \(name.text) cannot be found (crop=face is attention): \(error)")
            return .success([])
        }
        return found.map { $0.map(\.box) }
    }
}
