import CSystem
import Glibc

/// Whole reads and writes on a pipe's descriptor: blocking (the renderer's side), or in steps
/// of 50 ms on a non-blocking descriptor while `keepWaiting` says so (the server's side, which
/// asks its deadline and its stop between the steps).
enum Pipe {
    /// Writes all of `bytes`, blocking; false when the other end is gone.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        write(fd, bytes) { true }
    }

    /// Writes all of `bytes`; false when the other end is gone or `keepWaiting` said no.
    static func write(_ fd: Int32, _ bytes: [UInt8], keepWaiting: () -> Bool) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                offset += n
                continue
            }
            guard n < 0, errno == EINTR || errno == EAGAIN else { return false }
            if errno == EAGAIN {
                guard csys_wait_writable(fd, 50) >= 0, keepWaiting() else { return false }
            }
        }
        return true
    }

    /// Exactly `count` bytes, blocking; nil when the other end closed (or failed) first.
    static func read(_ fd: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            offset += n
        }
        return bytes
    }

    /// Exactly `count` bytes, waiting in steps of 50 ms while `keepWaiting` says so; nil when
    /// the other end closed first or `keepWaiting` said no. The buffer grows with what came,
    /// so a length the other end announced but never sends costs nothing.
    static func read(_ fd: Int32, count: Int, keepWaiting: () -> Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(count, 1 << 20))
        while bytes.count < count {
            let ready = csys_wait_readable(fd, 50)
            if ready < 0 { return nil }
            if ready == 0 {
                guard keepWaiting() else { return nil }
                continue
            }
            let want = min(chunk.count, count - bytes.count)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, want) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { return nil }
            bytes += chunk[0..<n]
        }
        return bytes
    }
}
