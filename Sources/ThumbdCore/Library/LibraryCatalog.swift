import Imaging
import Video

/// What a library holds, as `LibraryIndex` reads it: the images' paths with their versions,
/// and their bytes. A folder walks its tree (`FolderCatalog`); a bucket lists its keys
/// (`S3Catalog`).
package protocol LibraryCatalog: Sendable {
    /// Every image the library holds now, in any order. Blocking: a worker thread calls it.
    func entries() throws -> [LibraryIndex.Entry]
    /// The content of `entry` at its version (an image's bytes, a video's reader); nil when it
    /// cannot be read, is no image or video, or changed since listed. Blocking.
    func read(_ entry: LibraryIndex.Entry) -> SourceContent?
}
