#if canImport(Glibc)
import Glibc
#endif

/// A descriptor with exactly one owner: closed when the owner lets it go (at the end of a
/// scope, when its holder is freed, or by `close()`), so an early return or a thrown error
/// cannot leak it and nothing can close it twice. `raw` is for the system calls that use it.
public struct FileDescriptor: ~Copyable, Sendable {
    public let raw: Int32

    /// Takes ownership of `raw`, the result of a call that opens one; nil (and nothing to
    /// close) when that call failed.
    public init?(adopting raw: Int32) {
        guard raw >= 0 else { return nil }
        self.raw = raw
    }

    deinit { Glibc.close(raw) }

    /// Closes it now.
    public consuming func close() {}

    /// Hands the descriptor to a new owner outside this type (such as `fdopendir`), which
    /// will close it.
    public consuming func release() -> Int32 {
        let raw = self.raw
        discard self
        return raw
    }
}
