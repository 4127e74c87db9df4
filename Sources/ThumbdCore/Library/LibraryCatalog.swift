import Imaging

/// What a library holds, as `LibraryIndex` reads it: the images' paths with their versions,
/// and their bytes. A folder walks its tree (`FolderCatalog`); a bucket lists its keys
/// (`S3Catalog`).
package protocol LibraryCatalog: Sendable {
    /// Every image the library holds now, in any order. Blocking: a worker thread calls it.
    func entries() throws -> [LibraryIndex.Entry]
    /// The bytes of `entry` at its version, and their format; nil when they cannot be read,
    /// are no image, or changed since listed. Blocking.
    func read(_ entry: LibraryIndex.Entry) -> (bytes: [UInt8], format: ImageFormat)?
}
