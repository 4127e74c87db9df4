#if canImport(Glibc)
import Glibc
#endif

/// An open, read-only file descriptor shared by the responses that stream from it;
/// closed when the last of them is done.
public final class OpenFile: Sendable {
    private let owned: FileDescriptor

    public init(_ descriptor: consuming FileDescriptor) { owned = descriptor }

    public var descriptor: Int32 { owned.raw }
}
