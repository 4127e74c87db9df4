import Cache
import Foundation
import HTTP

/// Recently served library files: their metadata, validators and, for small files, their
/// bytes, so a hot original costs no file-system call at all. Like nginx's
/// open_file_cache, an entry is trusted for `revalidateAfter` seconds, then checked again
/// (reopened and compared by inode, size and mtime). A file replaced by rename is therefore
/// picked up within that window; until then the old version is served whole and
/// consistent with its old ETag.
final class LibraryFileCache: Sendable {
    final class Entry: Sendable {
        let file: ImageLibrary.File
        let content: [UInt8]?
        let etag: EntityTag
        let lastModified: Timestamp
        let checkedAt: Double
        /// The file served as it is (`/img/{path}` without parameters), its head prepared once.
        let original: PreparedRepresentation

        init(file: ImageLibrary.File, content: [UInt8]?, etag: EntityTag, lastModified: Timestamp, checkedAt: Double,
             cacheControl: String) {
            self.file = file
            self.content = content
            self.etag = etag
            self.lastModified = lastModified
            self.checkedAt = checkedAt
            var headers = HTTPHeaders()
            headers.add("Cache-Control", cacheControl)
            let body: ResponseBody = if let content { .bytes(content) } else { .file(file.handle, count: file.size) }
            original = PreparedRepresentation(Representation(contentType: file.format.mediaType, body: body, etag: etag,
                                                             lastModified: lastModified, headers: headers))
        }

        /// The whole file, read from the open descriptor (nil if it changed size meanwhile).
        func readAll() -> [UInt8]? { LibraryFileCache.read(file) }

    }

    private let library: ImageLibrary
    private let entries: SharedLRUCache<String, Entry>
    private let maxContentBytes: Int
    private let revalidateAfter: Double
    private let cacheControl: String
    private let clock: any MonotonicClock

    init(library: ImageLibrary, cacheControl: String, clock: any MonotonicClock, capacityBytes: Int = 64 << 20,
         maxContentBytes: Int = 256 << 10, revalidateAfter: Double = 1) {
        self.library = library
        self.cacheControl = cacheControl
        self.clock = clock
        self.entries = SharedLRUCache(capacity: capacityBytes)
        self.maxContentBytes = maxContentBytes
        self.revalidateAfter = revalidateAfter
    }

    func lookup(_ path: LibraryPath) throws(ImageLibrary.LookupError) -> Entry {
        let now = clock.now()
        let cached = entries.get(path.value)
        if let cached, now - cached.checkedAt < revalidateAfter { return cached }
        let file: ImageLibrary.File
        do {
            file = try library.open(path)
        } catch {
            entries.remove(path.value)
            throw error
        }
        var content: [UInt8]?
        if let cached, cached.file.version == file.version {
            content = cached.content
        } else if file.size <= Int64(maxContentBytes) {
            content = Self.read(file)
        }
        let entry = Entry(file: file, content: content, etag: Self.etag(for: file),
                          lastModified: Timestamp(seconds: file.modifiedSeconds), checkedAt: now,
                          cacheControl: cacheControl)
        // Metadata entries cost a nominal amount so that many large files still count.
        entries.put(path.value, entry, cost: (content?.count ?? 0) + 512)
        return entry
    }

    /// Strong and stable across restarts: derived from the file's version, not the process.
    static func etag(for file: ImageLibrary.File) -> EntityTag { EntityTag("o" + file.version.tag) }

    static func read(_ file: ImageLibrary.File) -> [UInt8]? {
        let size = Int(file.size)
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { pread(file.handle.descriptor, $0.baseAddress, size, 0) }
        return n == size ? bytes : nil
    }
}
