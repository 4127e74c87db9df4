import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Imaging
import Locking
import TestSupport
import ThumbdKit
import Clocks

/// The image type of the tests: the bytes themselves and the size their header declares. No
/// image library needed, and equality means byte-identical.
struct TestImage: Sendable, Hashable {
    let bytes: Data
    let width: Int?
    let height: Int?

    struct NotAnImage: Error {}

    @Sendable static func decode(_ data: Data) throws -> TestImage {
        let b = [UInt8](data.prefix(64 * 1024))
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]), b.count >= 24 {
            return TestImage(bytes: data, width: be32(b, 16), height: be32(b, 20))
        }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            // Walk the markers to the first start-of-frame.
            var i = 2
            while i + 9 < b.count, b[i] == 0xFF {
                let marker = b[i + 1]
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    return TestImage(bytes: data, width: Int(b[i + 7]) << 8 | Int(b[i + 8]), height: Int(b[i + 5]) << 8 | Int(b[i + 6]))
                }
                i += 2 + length
            }
            return TestImage(bytes: data, width: nil, height: nil)
        }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            return TestImage(bytes: data, width: nil, height: nil)
        }
        throw NotAnImage()
    }

    private static func be32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }
}

enum TestImages {
    /// A smooth pattern as JPEG (small, fast to transform).
    static func photo(width: Int, height: Int, seed: Int = 0) throws -> [UInt8] {
        try ImageSynthesis.pattern(width: width, height: height, seed: seed).encode(.jpeg)
    }

    /// Noise as JPEG: its thumbnails hardly compress, so a PNG of it is large (about 3 bytes a
    /// pixel). A random block of 96,001 bytes repeated by doubling (quick in debug and TSan
    /// builds): longer than deflate's 32 KiB window and out of step with any row, so neither
    /// PNG's filters nor deflate find the repeats.
    static func noise(width: Int, height: Int, seed: UInt64) throws -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        let period = 96_001
        var pixels: [UInt8] = []
        pixels.reserveCapacity(period)
        while pixels.count < period {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where pixels.count < period {
                pixels.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        let total = width * height * 3
        while pixels.count < total { pixels += pixels }
        return try ImageSynthesis.image(width: width, height: height, bands: 3, pixels: Array(pixels.prefix(total)))
            .encode(.jpeg, quality: 92)
    }
}

/// A clock the tests move by hand, so freshness expires without sleeping.
final class ManualClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date()) {
        current = Locked(start)
    }

    func now() -> Date {
        current.withLock { $0 }
    }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// Values appended from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let stored = Locked<[Value]>([])

    func append(_ value: Value) {
        stored.withLock { $0.append(value) }
    }

    var values: [Value] {
        stored.withLock { $0 }
    }
}

/// A transport wrapper that records what passes through it: requests, cancellations and
/// priority changes. The server behind it is the real one.
final class RecordingTransport: ThumbdTransport, Sendable {
    private struct Log {
        var sent: [URLRequest] = []
        var startPriorities: [Float] = []
        var priorityChanges: [Float] = []
        var cancelCount = 0
    }

    private let inner: any ThumbdTransport
    private let log = Locked(Log())

    init(wrapping inner: any ThumbdTransport) {
        self.inner = inner
    }

    func start(_ request: URLRequest, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) -> any TransportTask {
        log.withLock { log in
            log.sent.append(request)
            log.startPriorities.append(priority)
        }
        return RecordedTask(inner: inner.start(request, priority: priority, events: events), owner: self)
    }

    var requests: [URLRequest] { log.withLock { $0.sent } }
    var priorities: [Float] { log.withLock { $0.startPriorities } }
    var changes: [Float] { log.withLock { $0.priorityChanges } }
    var cancels: Int { log.withLock { $0.cancelCount } }

    fileprivate func noteCancel() {
        log.withLock { $0.cancelCount += 1 }
    }

    fileprivate func notePriority(_ priority: Float) {
        log.withLock { $0.priorityChanges.append(priority) }
    }
}

private final class RecordedTask: TransportTask, Sendable {
    let inner: any TransportTask
    let owner: RecordingTransport

    init(inner: any TransportTask, owner: RecordingTransport) {
        self.inner = inner
        self.owner = owner
    }

    func cancel() {
        owner.noteCancel()
        inner.cancel()
    }

    func setPriority(_ priority: Float) {
        owner.notePriority(priority)
        inner.setPriority(priority)
    }
}

/// Polls `condition` every 2 ms until it holds or `timeout` seconds of real time pass, and
/// says whether it held. The async twin of TestSupport's `eventually`: it suspends instead of
/// blocking a thread (the loader's tasks need the few threads of a 2-core machine), and runs
/// on the caller's actor. For effects of other threads, never to let a timeout expire.
@discardableResult
func until(isolation: isolated (any Actor)? = #isolation, timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return true
}

/// Whether a task ended with `CancellationError`.
func endedInCancellation<T>(_ result: Result<T, any Error>) -> Bool {
    if case .failure(let error) = result { return error is CancellationError }
    return false
}
