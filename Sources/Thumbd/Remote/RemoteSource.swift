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

    func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        switch originals.original(url) {
        case .success(let found):
            // `fetch` when the origin was asked; `original;desc=memory|disk` when it was not.
            let seconds = clock.now() - started
            let step: WorkStep = found.tier.map { .original($0, seconds) } ?? .fetch(seconds)
            return .success(LoadedSource(version: found.original.version, bytes: found.original.bytes, step: step, tier: found.tier))
        case .failure(let failure):
            return .failure(.source(failure))
        }
    }
}
