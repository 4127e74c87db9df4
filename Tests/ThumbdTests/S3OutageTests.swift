import Clocks
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// The store going down and coming back, with radosgw itself stopped and started: a Ceph of
/// its own (`.ceph`), since the other S3 tests need theirs up.
@Suite(.ceph) struct S3OutageTests {
    var store: S3TestServer { S3TestServer.current! }

    @Test func whatWasCachedIsServedAndTheRestIs503UntilTheStoreIsBack() throws {
        let clock = ManualClock()
        let bucket = try store.makeBucket()
        let a = S3Images.jpeg(640, 480, seed: 21), b = S3Images.jpeg(300, 300, seed: 22), c = S3Images.png(200, 100, seed: 23)
        try store.put(bucket, ["a.jpg": a, "b.jpg": b])
        let f = try S3LibraryFixture(store: store, bucket: bucket, clock: clock) { $0.library.s3.ttl = 10 }
        // What thumbd has before the store goes: a thumbnail of a (and its original, kept for it),
        // the original of b downloaded as it is, the listing (which reads both). c comes after.
        let thumbnail = try f.get("/img/a.jpg?w=100")
        #expect(thumbnail.status == 200)
        #expect(try f.get("/img/b.jpg").body == b)
        #expect(try f.get("/v1/images").status == 200)
        try store.put(bucket, ["c.png": c])
        let etag = try store.etag(bucket, "a.jpg")

        try store.stopGateway()
        clock.advance(by: 11)  // every version known is stale now: each would be asked again
        let cached = try f.get("/img/a.jpg?w=100")
        #expect(cached.status == 200 && cached.body == thumbnail.body && cached.header("ETag") == thumbnail.header("ETag"), "\(cached.text)")
        let made = try f.get("/img/a.jpg?w=60")
        #expect(made.status == 200 && made.header("X-Cache") == "miss", "made from the kept original: \(made.text)")
        let original = try f.get("/img/a.jpg")
        #expect(original.status == 200 && original.body == a && original.header("ETag") == etag)
        #expect(try f.get("/img/b.jpg", ["Range: bytes=10-19"]).body == Array(b[10..<20]))
        #expect(try f.get("/v1/images").status == 200)
        #expect(try f.get("/v1/images/a.jpg").status == 200)
        // What it never had: 503 with Retry-After.
        for target in ["/img/c.png", "/img/c.png?w=50", "/v1/images/c.png"] {
            let missing = try f.get(target)
            #expect(missing.status == 503 && missing.header("Retry-After") == "1" && missing.header("Content-Type") == "application/problem+json",
                    "\(target): \(missing.status)")
        }
        #expect(try f.s3Requests("get", "unavailable") + f.s3Requests("head", "unavailable") >= 1)

        // Back: the next request after the pause asks the store again, and everything works.
        try store.startGateway()
        clock.advance(by: S3Objects.pause + 0.1)
        let back = try f.get("/img/c.png?w=50")
        #expect(back.status == 200 && back.header("X-Cache") == "miss", "\(back.text)")
        #expect(try f.get("/img/c.png").body == c)
    }
}

/// A store that answers, but 30 s late (a delaying proxy of the tests' own in front
/// of the real radosgw). A slow store is a failing one: one wait for all, then answers at once.
@Suite(.ceph) struct S3StallTests {
    var store: S3TestServer { S3TestServer.current! }

    @Test func aStalledStoreAnswersEveryMissWithinItsTimeoutAndHeldThumbnailsAtOnce() throws {
        let bucket = try store.makeBucket()
        var objects: [String: [UInt8]] = ["held.jpg": S3Images.jpeg(320, 240, seed: 40)]
        for i in 0..<20 { objects["p\(i).jpg"] = S3Images.jpeg(120, 90, seed: 41 + i) }
        try store.put(bucket, objects)
        let upstream = try #require(URL(string: store.endpoint)?.port)
        let proxy = try FaultProxy(to: upstream)
        let timeout = 3.0
        let f = try S3LibraryFixture(store: store, bucket: bucket) { config in
            config.library.s3.endpoint = "http://127.0.0.1:\(proxy.port)"
            // Every version is asked again each time: the held thumbnail needs the store too.
            config.library.s3.ttl = 0
            config.origins.timeout = timeout
        }
        let held = try f.get("/img/held.jpg?w=100")
        #expect(held.status == 200)

        proxy.rules = [.init(.delay(seconds: 30))]
        let port = f.port
        // 20 different misses at once, and the held thumbnail asked among them.
        let answers = concurrently(21) { i -> (status: Int, retryAfter: String?, seconds: Double, etag: String?) in
            let target = i == 20 ? "/img/held.jpg?w=100" : "/img/p\(i).jpg?w=60"
            if i == 20 { usleep(200_000) }  // among the misses, not before them
            let started = Date()
            let response = try? RawHTTPClient(port: port, timeout: 60).request("GET", target)
            return (response?.status ?? 0, response?.header("Retry-After"), Date().timeIntervalSince(started), response?.header("ETag"))
        }
        let misses = answers.prefix(20), heldAgain = answers[20]
        for (i, miss) in misses.enumerated() {
            #expect(miss.status == 503 && miss.retryAfter == "1", "p\(i): \(miss.status)")
            #expect(miss.seconds <= timeout + 1, "p\(i) answered after \(miss.seconds) s")
        }
        #expect(heldAgain.status == 200 && heldAgain.etag == held.header("ETag"), "held: \(heldAgain.status)")
        #expect(heldAgain.seconds <= 1, "the held thumbnail waited \(heldAgain.seconds) s")
        #expect(f.service.app.thumbnails.staleAnswers.count >= 1)
        print("stalled store: 20 misses answered 503 in \(misses.map(\.seconds).min()!.formatted(.number.precision(.fractionLength(2))))-"
              + "\(misses.map(\.seconds).max()!.formatted(.number.precision(.fractionLength(2)))) s (origins.timeout \(timeout) s); "
              + "the held thumbnail 200 in \(heldAgain.seconds.formatted(.number.precision(.fractionLength(2)))) s")

        // The store answers again: after the pause, misses are made.
        proxy.rules = []
        #expect(eventually(timeout: 10) { (try? f.get("/img/p3.jpg?w=60").status) == 200 })
        proxy.stop()
    }
}

/// The store going down in the middle of a streamed original (its own Ceph: radosgw is
/// stopped). The head promised the length, so the client gets the bytes that came and then a
/// closed connection: a short body it can resume with Range, never a hang.
@Suite(.ceph) struct S3StreamOutageTests {
    var store: S3TestServer { S3TestServer.current! }

    @Test func aStoreThatStopsMidBodyClosesTheConnectionAfterWhatCame() throws {
        let bucket = try store.makeBucket()
        let large = LibraryFixture.fakeJPEG(24 << 20, seed: 31)
        try store.put(bucket, ["large.jpg": large])
        let f = try S3LibraryFixture(store: store, bucket: bucket) { $0.limits.maxSourceBytes = 64 << 20 }
        let client = try RawHTTPClient(port: f.port, timeout: 60)
        client.shrinkReceiveBuffer(to: 64 << 10)
        try client.send(RawHTTPClient.requestText("GET", "/img/large.jpg"))
        let head = try client.readHead()
        #expect(head.status == 200 && head.header("Content-Length") == String(large.count))
        let first = try client.readBody(count: 1 << 20)
        try store.stopGateway()
        let rest = try client.readToEnd()
        let body = first + rest
        #expect(body.count < large.count, "the body is short: \(body.count) of \(large.count)")
        #expect(body == Array(large.prefix(body.count)))
        #expect(try f.s3Requests("get", "unavailable") == 1)
        try store.startGateway()
    }
}
