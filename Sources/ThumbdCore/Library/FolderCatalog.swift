import FileSystem
import Foundation
import Imaging
import Video

/// The library folder as the index reads it: its regular files (symlinks are not listed: they
/// may point anywhere; hidden names are skipped, as the library refuses them), images read
/// whole, videos where FFmpeg asks.
package struct FolderCatalog: LibraryCatalog {
    package let root: String

    package init(root: String) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.path
    }

    package func entries() -> [LibraryIndex.Entry] {
        var entries: [LibraryIndex.Entry] = []
        DirectoryWalker.walk(root) { file in
            entries.append(LibraryIndex.Entry(path: file.path, version: Self.identity(file.version), tag: file.version.tag,
                                              size: file.version.size))
        }
        return entries
    }

    package func read(_ entry: LibraryIndex.Entry) -> SourceContent? {
        guard let descriptor = FileDescriptor(adopting: open(root + "/" + entry.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) else { return nil }
        let file = OpenFile(descriptor)
        guard let head = FileReading.read(file.descriptor, count: ImageFormat.sniffLength), let format = ImageFormat.sniff(head) else {
            return nil
        }
        if format.isVideo { return .video(VideoReader(file: file, length: Int(entry.size)), format) }
        guard let bytes = FileReading.readWhole(file.descriptor) else { return nil }
        return .image(bytes, format)
    }

    /// A file version as the index compares it: every field of it, so that a rewrite (which
    /// moves the change time) or another inode at the same path is a new version.
    package static func identity(_ version: FileVersion) -> String {
        "\(version.device):\(version.inode):\(version.size):\(version.modifiedNanos):\(version.changedNanos)"
    }
}
