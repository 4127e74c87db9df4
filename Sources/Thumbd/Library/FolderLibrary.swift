import HTTP
import ThumbdProtocol

/// A library folder: originals straight from their files (kept open, checked against a stat
/// on every request), thumbnails of them, the listing from walking the tree.
struct FolderLibrary: LibraryBackend {
    let files: LibraryFileCache
    let index: LibraryIndex
    let clock: any MonotonicClock

    var watermarks: any WatermarkImages { LibraryWatermarks(files: files) }

    /// `smallOriginals`: bytes of small files kept in memory (`MemoryPlan.smallOriginals`).
    init(library: ImageLibrary, fields: ImageFields, smallOriginals: Int, clock: any MonotonicClock) {
        files = LibraryFileCache(library: library, fields: fields, capacityBytes: smallOriginals)
        index = LibraryIndex(catalog: FolderCatalog(root: library.rootPath), clock: clock)
        self.clock = clock
    }

    func answer(_ request: HTTPRequest, path: LibraryPath, transform: TransformRequest?, thumbnails: ThumbnailEndpoint,
                memo: IdentityMemo?, finish: ThumbnailEndpoint.Finish?, responder: HTTPResponder) throws {
        let entry = try files.lookup(path)
        guard let transform else { return responder.respond(entry.original.response(to: request)) }
        let source = LibrarySource(path: path, entry: entry, clock: clock)
        try thumbnails.answer(request, transform: transform, of: source, responder: responder, memo: memo, finish: finish)
    }

    func info(_ path: LibraryPath) throws -> LibraryImageInfo {
        let entry = try files.lookup(path)
        let version = FolderCatalog.identity(entry.file.version)
        let facts: ImageFacts
        if let known = index.knownFacts(of: path.value, version: version) {
            facts = known
        } else {
            guard let bytes = entry.content ?? entry.readAll() else { throw LibraryChange.changedWhileRead }
            facts = try index.readFacts(of: path.value, version: version, tag: entry.file.version.tag, bytes: bytes,
                                        format: entry.file.format)
        }
        return LibraryImageInfo(facts: facts, originalETag: entry.etag.description, lastModified: entry.lastModified)
    }

    func sourceName(_ path: LibraryPath) -> SourceName { .library(path.value) }

    /// The original is the file itself, never in a cache tier.
    func forget(_ path: LibraryPath) -> Int { 0 }
}
