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
            return .success(LoadedSource(version: version, bytes: original.bytes,
                                         step: ServerTiming.Step("fetch", duration: clock.now() - started)))
        case .failure(let failure):
            return .failure(.source(failure))
        }
    }
}
