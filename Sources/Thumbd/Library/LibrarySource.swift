import HTTP

/// A library file as a thumbnail source: its version is known from its open-file entry,
/// its bytes are read on a worker thread.
struct LibrarySource: ThumbnailSource {
    let path: LibraryPath
    let entry: LibraryFileCache.Entry
    let clock: any MonotonicClock

    var name: SourceName { .library(path.value) }

    var knownVersion: SourceVersion? {
        SourceVersion(tag: entry.etag.opaque, format: entry.file.format, lastModified: entry.file.modifiedSeconds,
                      byteCount: Int(entry.file.size))
    }

    /// The file's bytes: kept in memory for small files, read from the open descriptor otherwise.
    func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        guard let bytes = entry.content ?? entry.readAll() else { return .failure(.source(LibraryChange.changedWhileRead)) }
        return .success(LoadedSource(version: knownVersion!, bytes: bytes,
                                     step: .read(clock.now() - started)))
    }
}
