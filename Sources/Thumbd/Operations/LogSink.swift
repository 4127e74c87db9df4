import Foundation
import Synchronization

/// Where log lines go: one file descriptor (standard error) behind one buffer.
///
/// Buffered lines (the access log: one per request) are written by a background thread every
/// `flushInterval`, or by the writer that fills the buffer past `flushBytes`, so the event
/// loops do not make a write(2) per request. Other lines flush at once, in order with the
/// buffered ones before them. `flush()` runs at exit too.
public final class LogSink: Sendable {
    public static let standardError = LogSink(fd: 2)

    public static let flushInterval = 0.2
    public static let flushBytes = 64 * 1024

    private struct State {
        var buffer: [UInt8] = []
        var flusherStarted = false
        var stampSecond = -1
        var stamp: [UInt8] = []
    }

    private let fd: Int32
    private let state = Mutex(State())
    /// Held while writing, so batches from two threads never interleave or reorder.
    private let writing = Mutex(())

    public init(fd: Int32) {
        self.fd = fd
    }

    static func formatUTC(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday))T\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec))Z"
    }

    /// Appends `time level label: [metadata ]message` and a newline, composed in the buffer
    /// itself. Unbuffered lines are written before this returns.
    public func write(level: String, label: String, metadata: String?, message: String, buffered: Bool) {
        let now = Int(time(nil))
        let (full, startFlusher) = state.withLock { s -> (Bool, Bool) in
            if s.stampSecond != now {
                s.stampSecond = now
                s.stamp = Array(Self.formatUTC(now).utf8)
            }
            s.buffer.append(contentsOf: s.stamp)
            s.buffer.append(32)
            s.buffer.append(contentsOf: level.utf8)
            s.buffer.append(32)
            s.buffer.append(contentsOf: label.utf8)
            s.buffer.append(contentsOf: ": ".utf8)
            if let metadata {
                s.buffer.append(contentsOf: metadata.utf8)
                s.buffer.append(32)
            }
            s.buffer.append(contentsOf: message.utf8)
            s.buffer.append(10)
            let start = buffered && !s.flusherStarted
            if start { s.flusherStarted = true }
            return (s.buffer.count >= Self.flushBytes, start)
        }
        if startFlusher { startFlushThread() }
        if !buffered || full { flush() }
    }

    /// Writes out everything buffered so far.
    public func flush() {
        writing.withLock { _ in
            let bytes = state.withLock { s -> [UInt8] in
                let taken = s.buffer
                s.buffer.removeAll(keepingCapacity: true)
                return taken
            }
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n > 0 {
                        offset += n
                    } else if n < 0 && errno == EINTR {
                        continue
                    } else {
                        return  // stderr closed or full disk: drop the batch rather than spin
                    }
                }
            }
        }
    }

    private func startFlushThread() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: Self.flushInterval)
                flush()
            }
        }
        thread.name = "thumbd-log"
        thread.start()
    }
}
