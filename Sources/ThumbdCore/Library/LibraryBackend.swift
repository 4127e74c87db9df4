import ThumbdProtocol

/// Where the library's images live: a folder (`FolderLibrary`) or an S3 bucket (`S3Library`),
/// chosen once from `library.root`. A backend resolves a path to what it is, for the routes
/// to answer (`/img`, the Picsum images, `/v1/images`, purge); it never sees a request.
package protocol LibraryBackend: Sendable {
    /// The listing: the images with their facts.
    var index: LibraryIndex { get }

    /// Watermark images (`wm`, `watermark.default`) from the same place as the originals.
    var watermarks: any WatermarkImages { get }

    /// The original at `path`, to be served as it is. Throws when there is none (a missing
    /// file, a path outside the library). Without blocking: the event loop calls it.
    func original(_ path: LibraryPath) throws -> LibraryOriginal

    /// The source of `path`'s thumbnails, for a transform that draws the watermark at
    /// `watermark` (a library path) if any. Without blocking.
    func source(_ path: LibraryPath, watermark: String?) throws -> ResolvedSource

    /// One image's facts and its original's validators. Blocking: a worker thread calls it.
    func info(_ path: LibraryPath) throws -> LibraryImageInfo

    /// Names `path`'s source in cache keys, so a purge finds its variants.
    func sourceName(_ path: LibraryPath) -> SourceName

    /// Drops what is kept of `path` besides its variants (an S3 original and its version);
    /// returns the cache entries removed. Blocking.
    func forget(_ path: LibraryPath) -> Int
}

/// An original as a backend has it.
package enum LibraryOriginal: Sendable {
    /// A folder's file, kept open, with its response prepared (served with sendfile).
    case file(LibraryFileCache.Entry)
    /// An object of a bucket, asked of the store with the client's range and conditions.
    case object(S3Original)
}

/// A thumbnail source, and what must run on a worker before its answer can be had, if
/// anything (a watermark object never seen, fetched from the bucket).
package struct ResolvedSource: Sendable {
    package let source: any ThumbnailSource
    package let preparation: (@Sendable () -> (any Error)?)?

    package init(source: any ThumbnailSource, preparation: (@Sendable () -> (any Error)?)?) {
        self.source = source
        self.preparation = preparation
    }
}
