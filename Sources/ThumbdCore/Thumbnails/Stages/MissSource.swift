import Video

/// A miss's source, read once for all its thumbnails: an image's bytes (an SVG's, a PDF's, or
/// a video small enough to read whole), or a video opened to be read in parts, only what its
/// stills need.
enum MissSource {
    case image(LoadedSource)
    case video(VideoReader, SourceVersion)

    var version: SourceVersion {
        switch self {
        case .image(let loaded): loaded.version
        case .video(_, let version): version
        }
    }

    /// The source read for a miss: whole within `maxSourceBytes`, else (a video of a source
    /// that reads videos in parts) opened.
    static func load(_ source: some ThumbnailSource, maxSourceBytes: Int) -> Result<MissSource, ThumbnailFailure> {
        if source.readsVideosInParts, let opened = source.videoReader(refusedWhole: false) {
            return .success(.video(opened.reader, opened.version))
        }
        switch source.load() {
        case .success(let whole):
            guard whole.bytes.count <= maxSourceBytes else {
                return .failure(.sourceTooLarge(bytes: whole.bytes.count, limit: maxSourceBytes))
            }
            if whole.version.format?.isVideo == true { return .success(.video(VideoReader(bytes: whole.bytes), whole.version)) }
            return .success(.image(whole))
        case .failure(let failure):
            // Too large to read whole: a video is read in parts instead.
            guard failure.isTooLarge, source.readsVideosInParts, let opened = source.videoReader(refusedWhole: true) else {
                return .failure(failure)
            }
            return .success(.video(opened.reader, opened.version))
        }
    }
}
