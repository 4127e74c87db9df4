#if canImport(Glibc)
import Glibc
#endif

/// An open, read-only file descriptor shared by the responses that stream from it;
/// closed when the last of them is done.
public final class OpenFile: Sendable {
    public let descriptor: Int32

    public init(adopting descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }
}
