#if canImport(Glibc)
import Glibc
#endif

/// Reading by descriptor, the one way for the library, its catalog and the disk cache:
/// positioned reads (the descriptor's offset is shared by everyone holding it) until the
/// count or the end of the file, into an array that is not zeroed first (a source of several
/// megabytes is read on every miss of it; zeroing it cost as much as the copy).
public enum FileReading {
    /// Up to `count` bytes from `offset`: fewer at the end of the file, nil on an error.
    public static func read(_ descriptor: Int32, count: Int, at offset: Int64 = 0) -> [UInt8]? {
        guard count >= 0 else { return nil }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            let done = read(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            failed = done == nil
            filled = done ?? 0
        }
        return failed ? nil : bytes
    }

    /// Fills `buffer` from `offset`: how many bytes (fewer at the end of the file), nil on an error.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0, errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Exactly `count` bytes from `offset`, or nil (an error, or the file ended first).
    public static func readExactly(_ descriptor: Int32, count: Int, at offset: Int64 = 0) -> [UInt8]? {
        guard let bytes = read(descriptor, count: count, at: offset), bytes.count == count else { return nil }
        return bytes
    }

    /// The whole file as its size is now (fstat), or nil: an error, an empty file, one of
    /// `limit` bytes or more, or one that ended before its size.
    public static func readWhole(_ descriptor: Int32, limit: Int = Int(Int32.max)) -> [UInt8]? {
        var st = stat()
        guard fstat(descriptor, &st) == 0, st.st_size > 0, st.st_size < Int64(limit) else { return nil }
        return readExactly(descriptor, count: Int(st.st_size))
    }
}
