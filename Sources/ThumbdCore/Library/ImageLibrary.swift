import CSystem
import FileSystem
import Foundation
import Imaging

/// The image files under the library root. Every lookup opens the file relative to the
/// root with openat2(RESOLVE_BENEATH), so `..`, absolute paths and symlinks that leave the
/// root are refused by the kernel itself, atomically, not by string checks alone.
public final class ImageLibrary: Sendable {
    public let rootPath: String
    private let root: FileDescriptor

    public struct File: Sendable {
        public let handle: OpenFile
        public let version: FileVersion
        public let format: ImageFormat

        public var size: Int64 { version.size }
        public var modifiedSeconds: Int { version.modifiedSeconds }

        package init(handle: OpenFile, version: FileVersion, format: ImageFormat) {
            self.handle = handle
            self.version = version
            self.format = format
        }
    }

    public struct SetupError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }

        package init(message: String) {
            self.message = message
        }
    }

    public enum LookupError: Error, Equatable {
        case notFound
        case notAnImage
        /// The file kept changing while it was read.
        case changing
    }

    public init(root: String) throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        guard let descriptor = FileDescriptor(adopting: Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) else {
            throw SetupError(message: "cannot open the library root \(root): \(String(cString: strerror(errno)))")
        }
        rootPath = root
        self.root = descriptor
    }

    /// The version of the file at `path` now (one stat, following a symlink as `open` would),
    /// or nil when there is no regular file there. Only compared with the version of a file
    /// opened beneath the root: a path that now resolves elsewhere differs, and is opened
    /// again by `open`, which refuses escapes.
    public func version(of path: LibraryPath) -> FileVersion? {
        var st = stat()
        guard fstatat(root.raw, path.value, &st, 0) == 0 else { return nil }
        return FileVersion(st)
    }

    public func open(_ path: LibraryPath) throws(LookupError) -> File {
        guard let opened = FileDescriptor(adopting: csys_open_beneath(root.raw, path.value)) else { throw .notFound }
        let handle = OpenFile(opened)
        let fd = handle.descriptor
        guard let version = FileVersion(descriptor: fd) else { throw .notFound }
        guard let head = FileReading.read(fd, count: ImageFormat.sniffLength), !head.isEmpty,
              let format = ImageFormat.sniff(head)
        else { throw .notAnImage }
        return File(handle: handle, version: version, format: format)
    }
}
