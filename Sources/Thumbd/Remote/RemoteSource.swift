import HTTP

/// A remote original as a thumbnail source: its version is known without a fetch while it
/// is fresh in memory; otherwise `load` fetches or revalidates it (once for every size
/// asked of it at the same time).
struct RemoteSource: ThumbnailSource {
    let url: String
    let originals: RemoteOriginals
    let clock: any MonotonicClock

    var name: SourceName { .remote(url) }

    var knownVersion: SourceVersion? {
        originals.fresh(url).map { SourceVersion(tag: $0.version, format: $0.format, lastModified: $0.lastModified) }
    }

    func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        switch originals.original(url) {
        case .success(let original):
            let version = SourceVersion(tag: original.version, format: original.format, lastModified: original.lastModified,
                                        byteCount: original.bytes.count)
            // `fetch` when the origin was asked; `original;desc=memory|disk` when it was not.
            let step = original.tier.map { ServerTiming.Step("original", duration: clock.now() - started, description: $0.rawValue) }
                ?? ServerTiming.Step("fetch", duration: clock.now() - started)
            return .success(LoadedSource(version: version, bytes: original.bytes, step: step, tier: original.tier))
        case .failure(let failure):
            return .failure(.source(failure))
        }
    }
}
