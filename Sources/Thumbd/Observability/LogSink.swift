import Foundation
import HTTP
import HTTPServer
import Locking
import Synchronization
import ThumbdCore

/// Where log lines go: one file descriptor (standard error) behind buffers.
///
/// Buffered lines (the access log: one per request) are written by a background thread every
/// `flushInterval`, or by the writer that fills its buffer past `flushBytes`, so the event
/// loops do not make a write(2) per request. Each thread appends to a shard of its own, so
/// two event loops never wait for each other here. Other lines flush at once, after the
/// buffered lines of their thread. `flush()` runs at exit too.
public final class LogSink: Sendable {
    public static let standardError = LogSink(fd: 2)

    public static let flushInterval = 0.2
    public static let flushBytes = 64 * 1024

    private struct Lines {
        var buffer: [UInt8] = []
        var stamp = SecondText { LogSink.formatUTC($0) }
    }

    private final class Shard: Sendable {
        let lines = Locked(Lines())
    }

    private let shards: [Shard]
    private let flusherStarted = Atomic<Bool>(false)
    /// The descriptor, written to only with its lock held, so batches never interleave. (A
    /// lock of a value, not of `()`: ThreadSanitizer reported the zero-sized value's accesses
    /// from two flushing threads as racing.)
    private let output: Locked<Int32>

    public init(fd: Int32, shards: Int = 8) {
        output = Locked(fd)
        self.shards = (0..<max(1, shards)).map { _ in Shard() }
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
        append(level: level, label: label, buffered: buffered) { buffer in
            if let metadata {
                buffer.append(contentsOf: metadata.utf8)
                buffer.append(32)
            }
            buffer.append(contentsOf: message.utf8)
        }
    }

    /// Appends `time level label: `, then what `compose` appends, and a newline, straight into
    /// this thread's buffer (the access log composes its line there, with no String between).
    /// Unbuffered lines are written before this returns.
    public func append(level: String, label: String, buffered: Bool, _ compose: (inout [UInt8]) -> Void) {
        let now = Int(time(nil))
        let full = shards[ThreadShard.index % shards.count].lines.withLock { s -> Bool in
            s.buffer.append(contentsOf: s.stamp.bytes(at: now))
            s.buffer.append(32)
            s.buffer.append(contentsOf: level.utf8)
            s.buffer.append(32)
            s.buffer.append(contentsOf: label.utf8)
            s.buffer.append(contentsOf: ": ".utf8)
            compose(&s.buffer)
            s.buffer.append(10)
            return s.buffer.count >= Self.flushBytes
        }
        if buffered && !flusherStarted.load(ordering: .relaxed)
            && flusherStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            startFlushThread()
        }
        if !buffered || full { flush() }
    }

    /// Writes out everything buffered so far.
    public func flush() {
        output.withLock { fd in
            for shard in shards {
                let bytes = shard.lines.withLock { s -> [UInt8] in
                    let taken = s.buffer
                    s.buffer.removeAll(keepingCapacity: true)
                    return taken
                }
                if !bytes.isEmpty { Self.writeAll(bytes, to: fd) }
            }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) {
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

/// A small number per thread, handed out in turn on first use (kept in thread-specific
/// storage), so each event loop appends to its own log shard.
enum ThreadShard {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let next = Atomic<Int>(0)

    static var index: Int {
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) - 1 }
        let index = next.add(1, ordering: .relaxed).oldValue
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: index + 1))
        return index
    }
}
