import CSystem
import Glibc

/// Whole reads and writes on a pipe's descriptor, blocking; `read` may also wait with a
/// deadline (`until`), giving up when `abandon` says so between waits.
enum Pipe {
    /// Writes all of `bytes`; false when the other end is gone.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Exactly `count` bytes; nil when the other end closed (or failed) first.
    static func read(_ fd: Int32, count: Int) -> [UInt8]? {
        read(fd, count: count) { true }
    }

    /// Exactly `count` bytes, waiting in steps of 50 ms while `keepWaiting` says so; nil when
    /// the other end closed first or `keepWaiting` said no.
    static func read(_ fd: Int32, count: Int, keepWaiting: () -> Bool) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let ready = csys_wait_readable(fd, 50)
            if ready < 0 { return nil }
            if ready == 0 {
                guard keepWaiting() else { return nil }
                continue
            }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            offset += n
        }
        return bytes
    }
}
