import Clocks
import Video

/// A remote original as a thumbnail source: its version is known without a fetch while it
/// is fresh; otherwise `load` fetches or revalidates it (once for every size asked of it at
/// the same time).
package struct RemoteSource: ThumbnailSource {
    package let url: String
    package let originals: RemoteOriginals
    package let clock: any MonotonicClock

    package var name: SourceName { .remote(url) }

    package var knownVersion: SourceVersion? { originals.freshVersion(url) }

    package var heldVersion: SourceVersion? { originals.lastVersion(url) }

    package func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        switch originals.original(url) {
        case .success(let found):
            return .success(LoadedSource(original: found.original, tier: found.tier, seconds: clock.now() - started))
        case .failure(let failure):
            return .failure(.source(failure))
        }
    }

    package var readsVideosInParts: Bool { true }

    /// A video over `limits.max_source_bytes`, once its whole fetch was refused, read by ranges
    /// (`RemoteOriginals.videoReader`); smaller ones are fetched whole and kept as originals.
    package func videoReader(refusedWhole: Bool) -> (reader: VideoReader, version: SourceVersion)? {
        refusedWhole ? originals.videoReader(url) : nil
    }

    package init(url: String, originals: RemoteOriginals, clock: any MonotonicClock) {
        self.url = url
        self.originals = originals
        self.clock = clock
    }
}
