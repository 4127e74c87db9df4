import Imaging
import Video

/// Where a thumbnail's source bytes come from: a library file, a remote original or an S3
/// object. The thumbnail service asks a source for its version (to make the cache key) and its
/// bytes.
package protocol ThumbnailSource: Sendable {
    /// Names the source in cache keys.
    var name: SourceName { get }
    /// The version known without blocking (a library file's, from its open-file entry; a
    /// remote original's while it is fresh in memory), so a hit can be answered on the event
    /// loop; nil when only `load` can tell.
    var knownVersion: SourceVersion? { get }
    /// The version, asking for it without the bytes if the source can (an S3 object: a HEAD),
    /// so a miss whose variant a tier holds costs no download; nil when only `load` can tell.
    /// Blocking: a worker thread calls it, when `knownVersion` was nil.
    func checkedVersion() -> Result<SourceVersion, ThumbnailFailure>?
    /// The bytes and the version they are. Blocking: a worker thread calls it.
    func load() -> Result<LoadedSource, ThumbnailFailure>
    /// The version last known, however old, when `knownVersion` is nil because its freshness
    /// has passed: what a thumbnail a tier holds was made from, answered while the source is
    /// asked again (`ThumbnailService.revalidate`). Without blocking.
    var heldVersion: SourceVersion? { get }
    /// Whether this source reads a video in parts (`videoReader`): then a video's size is
    /// bounded by the video limits, not by `limits.max_source_bytes`.
    var readsVideosInParts: Bool { get }
    /// A video read only where FFmpeg asks (a library file's descriptor, an S3 object's
    /// ranges), with its version; nil when the source is no video or is read whole (`load`).
    /// `refusedWhole`: `load` was just refused for its size, so the source may ask what it is.
    /// Blocking (it may ask the store): a worker thread calls it.
    func videoReader(refusedWhole: Bool) -> (reader: VideoReader, version: SourceVersion)?
}

extension ThumbnailSource {
    package func checkedVersion() -> Result<SourceVersion, ThumbnailFailure>? { nil }
    package var heldVersion: SourceVersion? { nil }
    package var readsVideosInParts: Bool { false }
    package func videoReader(refusedWhole: Bool) -> (reader: VideoReader, version: SourceVersion)? { nil }
}
