import Foundation
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// Originals from a bucket are streamed (issue 35): the head goes out once the store answers,
/// the body as the store sends it, through a bounded buffer on a transfer thread of its own, so
/// a slow client holds no worker, a client that leaves ends the store's transfer, and an object
/// much larger than the buffer still arrives byte for byte. (Part of `S3LibraryTests`, on its
/// store: one Ceph fewer for the suites to start.)
extension S3LibraryTests {
    /// 24 MiB that start like a JPEG: 24 times what a stream holds at once.
    static let largeObject = LibraryFixture.fakeJPEG(24 << 20, seed: 11)
    static let smallJPEG = S3Images.jpeg(200, 150, seed: 12)
    static let streamedPhoto = S3Images.jpeg(1600, 1200, seed: 13)

    /// One worker, so a download that held it would stop every thumbnail.
    func streamingFixture() throws -> S3LibraryFixture {
        let bucket = try store.makeBucket()
        try store.put(bucket, ["large.jpg": Self.largeObject, "small.jpg": Self.smallJPEG, "photo.jpg": Self.streamedPhoto])
        return try S3LibraryFixture(store: store, bucket: bucket) {
            $0.limits.workers = 1
            $0.limits.maxSourceBytes = 64 << 20
        }
    }

    @Test func aSlowDownloadHoldsNoWorkerAndArrivesWhole() throws {
        let f = try streamingFixture()
        let slow = try RawHTTPClient(port: f.port, timeout: 30)
        slow.shrinkReceiveBuffer(to: 64 << 10)
        try slow.send(RawHTTPClient.requestText("GET", "/img/large.jpg"))
        let head = try slow.readHead()
        #expect(head.status == 200 && head.header("Content-Length") == String(Self.largeObject.count))
        #expect(head.header("Content-Type") == "image/jpeg" && head.header("Accept-Ranges") == "bytes")
        #expect(try head.header("ETag") == store.etag(f.bucket, "large.jpg"))
        // While that client reads nothing, the one worker makes a thumbnail and another client
        // resumes the same object: each is its own GET to the store, and the slow one has not ended.
        #expect(try f.get("/img/small.jpg?w=50").status == 200)
        let range = try f.get("/img/large.jpg", ["Range: bytes=1000000-1000999"])
        #expect(range.status == 206 && range.body == Array(Self.largeObject[1_000_000..<1_001_000]))
        // The two quick GETs are counted when their transfers end, just after their answers.
        #expect(eventually { ((try? f.s3Requests("get")) ?? 0) >= 2 })
        #expect(try f.s3Requests("get") == 2, "the slow download's GET is still under way")
        #expect(try slow.readBody(count: Self.largeObject.count) == Self.largeObject)
        #expect(eventually { (try? f.s3Requests("get")) == 3 })
    }

    @Test func aClientThatLeavesEndsTheStoresTransfer() throws {
        let f = try streamingFixture()
        do {
            let leaving = try RawHTTPClient(port: f.port, timeout: 30)
            leaving.shrinkReceiveBuffer()
            try leaving.send(RawHTTPClient.requestText("GET", "/img/large.jpg"))
            #expect(try leaving.readHead().status == 200)
        }  // closed here, with most of the body unread
        #expect(eventually { (try? f.s3Requests("get")) == 1 }, "the transfer ended when its client left")
        #expect(try f.get("/img/large.jpg").body == Self.largeObject)
    }

    /// A whole object that came whole is kept as the original: its thumbnails ask the store nothing more.
    @Test func aStreamedOriginalIsKeptForItsThumbnails() throws {
        let f = try streamingFixture()
        #expect(try f.get("/img/photo.jpg").body == Self.streamedPhoto)
        #expect(try f.s3Requests("get") == 1)
        let thumbnail = try f.get("/img/photo.jpg?w=100")
        #expect(thumbnail.status == 200 && thumbnail.header("X-Cache") == "miss")
        #expect(try f.s3Requests("get") == 1)
    }
}
