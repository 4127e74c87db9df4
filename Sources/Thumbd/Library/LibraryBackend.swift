import HTTP
import ThumbdProtocol

/// Where the library's images live, as the routes over it see it: a folder
/// (`FolderLibrary`) or an S3 bucket (`S3Library`), chosen once from `library.root`. The
/// routes (`/img`, `/v1/images`, `/v1/images/{path}`, `/`, purge) hold one and never ask
/// which it is.
protocol LibraryBackend: Sendable {
    /// The listing: the images with their facts.
    var index: LibraryIndex { get }

    /// Watermark images (`wm`, `watermark.default`) from the same place as the originals.
    var watermarks: any WatermarkImages { get }

    /// Answers `/img/{path}`: the original as it is without a transform, else a thumbnail
    /// through `thumbnails` (a hit on the event loop, as the caller runs it), with `finish`
    /// adding a route's own fields to it (the Picsum routes'). Throws what prevents an answer
    /// before any work starts (a missing file, a full queue).
    func answer(_ request: HTTPRequest, path: LibraryPath, transform: TransformRequest?, thumbnails: ThumbnailEndpoint,
                memo: IdentityMemo?, finish: ThumbnailEndpoint.Finish?, responder: HTTPResponder) throws

    /// One image's facts and its original's validators. Blocking: a worker thread calls it.
    func info(_ path: LibraryPath) throws -> LibraryImageInfo

    /// Names `path`'s source in cache keys, so a purge finds its variants.
    func sourceName(_ path: LibraryPath) -> SourceName

    /// Drops what is kept of `path` besides its variants (an S3 original and its version);
    /// returns the cache entries removed. Blocking.
    func forget(_ path: LibraryPath) -> Int
}
