import Clocks
import Video

/// A library file as a thumbnail source: its version is known from its open-file entry,
/// its bytes are read on a worker thread.
package struct LibrarySource: ThumbnailSource {
    package let path: LibraryPath
    package let entry: LibraryFileCache.Entry
    package let clock: any MonotonicClock

    package var name: SourceName { .library(path.value) }

    package var knownVersion: SourceVersion? {
        SourceVersion(tag: entry.versionTag, format: entry.file.format, lastModified: entry.file.modifiedSeconds,
                      byteCount: Int(entry.file.size))
    }

    /// The file's bytes: kept in memory for small files, read from the open descriptor otherwise.
    package func load() -> Result<LoadedSource, ThumbnailFailure> {
        let started = clock.now()
        guard let bytes = entry.content ?? entry.readAll() else { return .failure(.source(LibraryChange.changedWhileRead)) }
        return .success(LoadedSource(version: knownVersion!, bytes: bytes,
                                     step: .read(clock.now() - started)))
    }

    package var readsVideosInParts: Bool { true }

    /// A video file read with `pread` on its open descriptor (kept open by the reader).
    package func videoReader(refusedWhole: Bool) -> (reader: VideoReader, version: SourceVersion)? {
        guard entry.file.format.isVideo, let version = knownVersion else { return nil }
        return (VideoReader(file: entry.file.handle, length: Int(entry.file.size)), version)
    }

    package init(path: LibraryPath, entry: LibraryFileCache.Entry, clock: any MonotonicClock) {
        self.path = path
        self.entry = entry
        self.clock = clock
    }
}
