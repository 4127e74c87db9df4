import HTTP

/// A remote original as a thumbnail source: its version is known without a fetch while it
/// is fresh; otherwise `load` fetches or revalidates it (once for every size asked of it at
/// the same time).
struct RemoteSource: ThumbnailSource {
    let url: String
    let originals: RemoteOriginals
    let clock: any MonotonicClock

    var name: SourceName { .remote(url) }

    var knownVersion: SourceVersion? { originals.freshVersion(url) }

    var heldVersion: SourceVersion? { originals.lastVersion(url) }

    func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        switch originals.original(url) {
        case .success(let found):
            return .success(LoadedSource(original: found.original, tier: found.tier, seconds: clock.now() - started))
        case .failure(let failure):
            return .failure(.source(failure))
        }
    }
}
