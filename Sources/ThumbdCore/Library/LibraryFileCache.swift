import Cache
import FileSystem
import Foundation
import HTTP

/// Recently served library files: their metadata, validators and, for small files, their
/// bytes, kept open so a hot original costs one `stat` of its path and nothing else. The
/// stat is made on every lookup and compared with the open file's version (inode, size,
/// modification and change times), so a file rewritten in place, renamed over or deleted
/// is seen by the very next request: there is no trust window.
package final class LibraryFileCache: Sendable {
    package final class Entry: Sendable {
        package let file: ImageLibrary.File
        package let content: [UInt8]?
        package let etag: EntityTag
        /// The file's version as keys spell it, rendered once (every hit reads it).
        package let versionTag: VersionTag
        package let lastModified: Timestamp
        /// The file served as it is (`/img/{path}` without parameters), its head prepared once.
        package let original: PreparedRepresentation

        package init(file: ImageLibrary.File, content: [UInt8]?, fields: @Sendable (String) -> HTTPHeaders) {
            self.file = file
            self.content = content
            versionTag = VersionTag(.file(modifiedNanos: file.version.modifiedNanos, size: file.version.size))
            // Strong and stable across restarts and replicas: from the file's size and
            // modification time, not from the process or the inode.
            etag = EntityTag(versionTag.text)
            lastModified = Timestamp(seconds: file.modifiedSeconds)
            let headers = fields(file.format.mediaType)
            let body: ResponseBody = if let content { .bytes(content) } else { .file(file.handle, count: file.size) }
            original = PreparedRepresentation(Representation(contentType: file.format.mediaType, body: body, etag: etag,
                                                             lastModified: lastModified, headers: headers))
        }

        /// The whole file, read from the open descriptor; nil when the file changed since this
        /// entry was made or while it was read (a rewrite in progress must never be
        /// transformed and cached under the old version).
        package func readAll() -> [UInt8]? { LibraryFileCache.read(file) }
    }

    private let library: ImageLibrary
    private let entries: SharedLRUCache<String, Entry>
    private let maxContentBytes: Int
    /// The response fields of an original of a media type (the app's image fields).
    private let fields: @Sendable (String) -> HTTPHeaders

    package init(library: ImageLibrary, fields: @escaping @Sendable (String) -> HTTPHeaders, capacityBytes: Int = 64 << 20,
         maxContentBytes: Int = 256 << 10) {
        self.library = library
        self.fields = fields
        self.entries = SharedLRUCache(capacity: capacityBytes)
        self.maxContentBytes = maxContentBytes
    }

    package func lookup(_ path: LibraryPath) throws(ImageLibrary.LookupError) -> Entry {
        let current = library.version(of: path)
        if let cached = entries.get(path.value), let current, cached.file.version == current { return cached }
        guard current != nil else {
            entries.remove(path.value)
            throw .notFound
        }
        // New, or changed since it was kept: open it again (beneath the root) and read it.
        for _ in 0..<3 {
            let file: ImageLibrary.File
            do {
                file = try library.open(path)
            } catch {
                entries.remove(path.value)
                throw error
            }
            var content: [UInt8]?
            if file.size <= Int64(maxContentBytes) {
                content = Self.read(file)
                // Changed while being read: try again rather than keep torn bytes.
                if content == nil { continue }
            }
            let entry = Entry(file: file, content: content, fields: fields)
            // Metadata entries cost a nominal amount so that many large files still count.
            entries.put(path.value, entry, cost: (content?.count ?? 0) + 512)
            return entry
        }
        throw .changing
    }

    /// The file's bytes, if its version is the same after the read as it was when opened.
    package static func read(_ file: ImageLibrary.File) -> [UInt8]? {
        guard let bytes = FileReading.readExactly(file.handle.descriptor, count: Int(file.size)),
              FileVersion(descriptor: file.handle.descriptor) == file.version
        else { return nil }
        return bytes
    }
}
