import Clocks
import Video

/// An S3 object as a thumbnail source: its version is known without asking while it is fresh
/// (`library.s3.ttl`); after that a miss asks with a HEAD, so a variant kept for an unchanged
/// object is answered without a download; `load` fetches the original once for all sizes.
package struct S3Source: ThumbnailSource {
    package let key: String
    package let objects: S3Objects
    package let clock: any MonotonicClock

    package var name: SourceName { objects.sourceName(key) }

    package var knownVersion: SourceVersion? { objects.freshVersion(key) }

    package var heldVersion: SourceVersion? { objects.lastVersion(key).flatMap { $0.format == nil ? nil : $0 } }

    package func checkedVersion() -> Result<SourceVersion, ThumbnailFailure>? {
        switch objects.currentVersion(key) {
        case .success(let version): version.map { .success($0) }
        case .failure(let error): .failure(.source(error))
        }
    }

    package func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        switch objects.original(key) {
        case .success(let found):
            return .success(LoadedSource(original: found.original, tier: found.tier, seconds: clock.now() - started))
        case .failure(let error):
            return .failure(.source(error))
        }
    }

    package var readsVideosInParts: Bool { true }

    /// A video object over `limits.max_source_bytes` read by ranges (`S3Objects.videoReader`).
    package func videoReader(refusedWhole: Bool) -> (reader: VideoReader, version: SourceVersion)? {
        objects.videoReader(key, asking: refusedWhole)
    }

    package init(key: String, objects: S3Objects, clock: any MonotonicClock) {
        self.key = key
        self.objects = objects
        self.clock = clock
    }
}
