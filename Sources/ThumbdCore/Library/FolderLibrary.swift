import Clocks
import HTTP
import ThumbdProtocol
import Video

/// A library folder: originals straight from their files (kept open, checked against a stat
/// on every request), thumbnails of them, the listing from walking the tree.
package struct FolderLibrary: LibraryBackend {
    package let files: LibraryFileCache
    package let index: LibraryIndex
    package let clock: any MonotonicClock

    package var watermarks: any WatermarkImages { LibraryWatermarks(files: files) }

    /// `smallOriginals`: bytes of small files kept in memory; `fields`: the response fields of an
    /// original of a media type (the app's image fields).
    /// `reading`: what a video's facts may cost (the thumbnails' video limits), and the renderers of SVG and PDF.
    package init(library: ImageLibrary, fields: @escaping @Sendable (String) -> HTTPHeaders, smallOriginals: Int,
                 clock: any MonotonicClock, reading: FactReading = FactReading()) {
        files = LibraryFileCache(library: library, fields: fields, capacityBytes: smallOriginals)
        index = LibraryIndex(catalog: FolderCatalog(root: library.rootPath), clock: clock, reading: reading)
        self.clock = clock
    }

    package func original(_ path: LibraryPath) throws -> LibraryOriginal { .file(try files.lookup(path)) }

    package func source(_ path: LibraryPath, watermark: String?) throws -> ResolvedSource {
        ResolvedSource(source: LibrarySource(path: path, entry: try files.lookup(path), clock: clock), preparation: nil)
    }

    package func info(_ path: LibraryPath) throws -> LibraryImageInfo {
        let entry = try files.lookup(path)
        let version = FolderCatalog.identity(entry.file.version)
        let facts: ImageFacts
        if let known = index.knownFacts(of: path.value, version: version) {
            facts = known
        } else {
            let content: SourceContent
            if entry.file.format.isVideo {
                content = .video(VideoReader(file: entry.file.handle, length: Int(entry.file.size)), entry.file.format)
            } else {
                guard let bytes = entry.content ?? entry.readAll() else { throw LibraryChange.changedWhileRead }
                content = .image(bytes, entry.file.format)
            }
            facts = try index.readFacts(of: path.value, version: version, tag: entry.file.version.tag, content: content,
                                        bytes: entry.file.size)
        }
        return LibraryImageInfo(facts: facts, originalETag: entry.etag.description, lastModified: entry.lastModified)
    }

    package func sourceName(_ path: LibraryPath) -> SourceName { .library(path.value) }

    /// The original is the file itself, never in a cache tier.
    package func forget(_ path: LibraryPath) -> Int { 0 }
}
