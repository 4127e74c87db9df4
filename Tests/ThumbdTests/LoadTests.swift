import Dispatch
import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// Runs `body` on `count` threads at once and waits for all of them.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = ResultsBox<T>(count)
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            results.set(i, body(i))
            group.leave()
        }.start()
    }
    group.wait()
    return results.values
}

final class ResultsBox<T: Sendable>: @unchecked Sendable {
    private var storage: [T?]
    private let lock = NSLock()
    init(_ count: Int) { storage = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: T) { lock.withLock { storage[i] = value } }
    var values: [T] { lock.withLock { storage.map { $0! } } }
}

@Suite struct LoadTests {
    /// Heavy enough that a few of them keep one worker busy for a while.
    static let heavy: [UInt8] = try! ImageSynthesis.pattern(width: 1600, height: 1200).encode(.jpeg, quality: 95)

    @Test func aFullQueueGets503WhileHealthAndOriginalsStillAnswer() throws {
        let f = try LibraryFixture(files: ["heavy.jpg": Self.heavy, "small.jpg": LibraryFixture.fakeJPEG(2000)]) { config in
            config.limits.workers = 1
            config.limits.queue = 1
        }
        let port = f.port
        let pool = f.service.app.pool
        // 12 different AVIF transforms at once: 1 runs, 1 waits, the rest are refused.
        let statuses = concurrently(12) { i -> (Int, String?) in
            guard let response = try? RawHTTPClient(port: port, timeout: 60).request("GET", "/img/heavy.jpg?w=\(1000 + i)&fm=avif")
            else { return (0, nil) }
            return (response.status, response.header("Retry-After"))
        }
        #expect(statuses.contains { $0.0 == 200 })
        let refused = statuses.filter { $0.0 == 503 }
        #expect(refused.count >= 8, "\(statuses)")
        #expect(refused.allSatisfy { $0.1 == "1" })
        #expect(statuses.allSatisfy { $0.0 == 200 || $0.0 == 503 })

        // Busy again: health and originals are answered on the event loop, not behind the queue.
        let background = Thread {
            _ = concurrently(2) { i in (try? RawHTTPClient(port: port, timeout: 60).request("GET", "/img/heavy.jpg?w=\(800 + i)&fm=avif").status) ?? 0 }
        }
        background.start()
        var sawBusy = false
        for _ in 0..<200 where !sawBusy {
            Thread.sleep(forTimeInterval: 0.005)
            sawBusy = pool.running > 0
        }
        #expect(sawBusy)
        let health = try RawHTTPClient(port: port).request("GET", "/health")
        let original = try RawHTTPClient(port: port).request("GET", "/img/small.jpg")
        let stillBusy = pool.running > 0
        #expect(health.status == 200)
        #expect(original.status == 200 && original.body.count == 2000)
        #expect(stillBusy, "answered while a transform was still running")
    }

    @Test func workForClientsThatLeftIsDropped() throws {
        let f = try LibraryFixture(files: ["heavy.jpg": Self.heavy]) { config in
            config.limits.workers = 1
            config.limits.queue = 16
        }
        let port = f.port
        let app = f.service.app
        // One slow transform (an enlarged AVIF) keeps the only worker busy...
        let first = Thread {
            _ = try? RawHTTPClient(port: port, timeout: 120).request("GET", "/img/heavy.jpg?w=3200&enlarge=1&fm=avif")
        }
        first.start()
        while app.pool.running == 0 { Thread.sleep(forTimeInterval: 0.005) }
        // ...while five more are queued by clients that hang up at once.
        for i in 0..<5 {
            let client = try RawHTTPClient(port: port)
            try client.send(RawHTTPClient.requestText("GET", "/img/heavy.jpg?w=\(500 + i)&fm=avif"))
            while app.pool.queueDepth < i + 1 { Thread.sleep(forTimeInterval: 0.002) }
        }
        // The server notices the hang-ups (only the first client's connection is left).
        while f.service.server.openConnections > 1 { Thread.sleep(forTimeInterval: 0.005) }
        let noticedInTime = app.thumbnails.transformsRun.count == 0
        // Let the worker drain the queue, then count what actually ran.
        while app.pool.running + app.pool.queueDepth > 0 { Thread.sleep(forTimeInterval: 0.02) }
        #expect(app.pool.queueDepth == 0)
        if noticedInTime {
            #expect(app.thumbnails.transformsRun.count == 1, "ran \(app.thumbnails.transformsRun.count) transforms")
        }
        #expect(noticedInTime, "the first transform finished before the hang-ups were seen; the test proved nothing")
    }
}
