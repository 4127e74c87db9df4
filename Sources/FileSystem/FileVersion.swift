#if canImport(Glibc)
import Glibc
#endif

/// One version of a regular file: the inode it is, with its size and times. Any write to a
/// file moves its change time (ctime), so an equal version means unchanged bytes. `tag`
/// names the version by size and modification time only, which a copy of the file on
/// another machine shares: validators and cache keys are made from it.
public struct FileVersion: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    /// Nanoseconds since the epoch.
    public let modifiedNanos: Int64
    public let changedNanos: Int64

    /// The version of a regular file from its stat; nil for anything else.
    public init?(_ st: stat) {
        guard st.st_mode & S_IFMT == S_IFREG else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedNanos = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changedNanos = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }

    /// The version of the file open as `descriptor` (fstat).
    public init?(descriptor: Int32) {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return nil }
        self.init(st)
    }

    /// The version of `name` in the folder open as `directory`, without following a symlink.
    public init?(name: UnsafePointer<CChar>, in directory: Int32) {
        var st = stat()
        guard fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        self.init(st)
    }

    public init(device: UInt64, inode: UInt64, size: Int64, modifiedNanos: Int64, changedNanos: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanos = modifiedNanos
        self.changedNanos = changedNanos
    }

    public var modifiedSeconds: Int { Int(modifiedNanos / 1_000_000_000) }

    /// `<mtime ns>-<size>` in hex: stable across restarts and identical copies.
    public var tag: String {
        String(UInt64(bitPattern: modifiedNanos), radix: 16) + "-" + String(size, radix: 16)
    }
}
