import HTTP
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
    /// A video known as one before it is read (`knownVersion`'s format), read only where
    /// FFmpeg asks (a library file's descriptor, an S3 object's ranges), with that version;
    /// nil: `load` reads the source whole. Without blocking; the reader blocks.
    func videoReader() -> (reader: VideoReader, version: SourceVersion)?
}

extension ThumbnailSource {
    package func checkedVersion() -> Result<SourceVersion, ThumbnailFailure>? { nil }
    package var heldVersion: SourceVersion? { nil }
    package func videoReader() -> (reader: VideoReader, version: SourceVersion)? { nil }
}
