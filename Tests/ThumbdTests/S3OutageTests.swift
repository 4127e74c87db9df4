import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd

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
