import Clocks
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import WireCoding

/// thumbd on an S3 library, against a real Ceph RGW (one for the suite, `.ceph`), with real
/// libcurl and real clients: originals byte for byte with Range, resume and revalidation
/// passed to the store, thumbnails from one fetch, a listing of several ListObjectsV2 pages,
/// replaced objects seen after the ttl, path rules, the size limit, purges, and keys that never
/// show.
@Suite(.ceph) struct S3LibraryTests {
    var store: S3TestServer { S3TestServer.current! }

    static let a = S3Images.jpeg(800, 600, seed: 1)
    static let b = S3Images.png(300, 200, seed: 2)
    static let c = S3Images.jpeg(240, 320, seed: 3)
    /// 1.5 MB that start like a JPEG: served byte for byte, never decoded.
    static let big = LibraryFixture.fakeJPEG(1_500_000, seed: 9)

    /// A bucket with the library under `lib/`, and what must stay out of reach: a hidden key, a
    /// text file, and a key outside the prefix.
    func libraryBucket() throws -> String {
        let bucket = try store.makeBucket()
        try store.put(bucket, ["lib/a.jpg": Self.a, "lib/b.png": Self.b, "lib/sub/c.jpg": Self.c, "lib/space name.jpg": Self.c,
                               "lib/big.jpg": Self.big, "lib/notes.txt": Array("not an image".utf8), "lib/.hidden.jpg": Self.a,
                               "secret.jpg": Self.a])
        return bucket
    }

    func fixture(clock: any MonotonicClock = SystemClock(), _ configure: (inout ThumbdConfig) -> Void = { _ in }) throws -> S3LibraryFixture {
        try S3LibraryFixture(store: store, bucket: libraryBucket(), prefix: "lib", clock: clock, configure: configure)
    }

    func json(_ response: RawHTTPClient.Response) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.body))
    }

    @Test func originalsAreServedByteForByteWithThumbdsHeaders() throws {
        let f = try fixture()
        let original = try f.get("/img/a.jpg")
        #expect(original.status == 200 && original.body == Self.a)
        #expect(try original.header("ETag") == store.etag(f.bucket, "lib/a.jpg"))
        #expect(original.header("Content-Type") == "image/jpeg" && original.header("Accept-Ranges") == "bytes")
        #expect(original.header("Cache-Control") == "public, max-age=86400" && original.header("Last-Modified") != nil)
        #expect(try f.get("/img/space%20name.jpg").body == Self.c)
        #expect(try f.get("/img/b.png").header("Content-Type") == "image/png")
        let head = try f.get("/img/a.jpg", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(Self.a.count))
        #expect(head.header("ETag") == original.header("ETag"))
    }

    @Test func rangesAndConditionsGoToTheStore() throws {
        let f = try fixture()
        let etag = try #require(try f.get("/img/a.jpg").header("ETag"))
        let total = Self.a.count
        let part = try f.get("/img/a.jpg", ["Range: bytes=100-199"])
        #expect(part.status == 206 && part.body == Array(Self.a[100..<200]))
        #expect(part.header("Content-Range") == "bytes 100-199/\(total)" && part.header("Content-Type") == "image/jpeg")
        #expect(part.header("ETag") == etag && part.header("Cache-Control") == "public, max-age=86400")
        let tail = try f.get("/img/a.jpg", ["Range: bytes=-10"])
        #expect(tail.status == 206 && tail.body == Array(Self.a.suffix(10)))
        // Stores send the first range only: several are answered here from the whole object.
        let several = try f.get("/img/a.jpg", ["Range: bytes=0-1,10-11"])
        #expect(several.status == 206 && several.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
        let beyond = try f.get("/img/a.jpg", ["Range: bytes=\(total + 10)-"])
        #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */\(total)")
        // Revalidation: 304 with the validators, from the ETag and from the date.
        let same = try f.get("/img/a.jpg", ["If-None-Match: \(etag)"])
        #expect(same.status == 304 && same.header("ETag") == etag && same.body.isEmpty)
        let date = try #require(part.header("Last-Modified"))
        #expect(try f.get("/img/a.jpg", ["If-Modified-Since: \(date)"]).status == 304)
        #expect(try f.get("/img/a.jpg", ["If-None-Match: \"other\""]).status == 200)
        #expect(try f.get("/img/a.jpg", ["If-Match: \"other\""]).status == 412)
        // If-Range, which stores ignore: the range only for the current version.
        #expect(try f.get("/img/a.jpg", ["Range: bytes=0-9", "If-Range: \(etag)"]).status == 206)
        let changed = try f.get("/img/a.jpg", ["Range: bytes=0-9", "If-Range: \"older\""])
        #expect(changed.status == 200 && changed.body == Self.a)
        // A range that does not start the object still gets its type (known, or asked).
        let fresh = try fixture()
        let middle = try fresh.get("/img/b.png", ["Range: bytes=50-59"])
        #expect(middle.status == 206 && middle.header("Content-Type") == "image/png" && middle.body == Array(Self.b[50..<60]))
    }

    @Test func curlResumesAnOriginalThroughThumbd() throws {
        let f = try fixture()
        let url = "http://127.0.0.1:\(f.port)/img/big.jpg"
        let out = f.cache.appendingPathComponent("download.jpg").path
        try FileManager.default.createDirectory(at: f.cache, withIntermediateDirectories: true)
        // The reader goes away after 400 KB: curl dies mid-file, leaving a prefix.
        try runProgram("/bin/sh", ["-c", "curl -s '\(url)' | head -c 400000 > '\(out)'"])
        #expect(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int == 400_000)
        let resumed = try runProgram("/usr/bin/curl", ["-s", "-C", "-", "-o", out, "-w", "%{http_code}", url])
        #expect(resumed.status == 0 && resumed.output == "206")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == Self.big)
    }

    @Test func thumbnailsComeFromOneFetchOfTheOriginal() throws {
        let f = try fixture()
        let first = try f.get("/img/a.jpg?w=100")
        #expect(first.status == 200 && first.header("X-Cache") == "miss", "\(first.text)")
        #expect(try ImageHeader.read(first.body).width == 100)
        #expect(first.header("Server-Timing")?.contains("fetch;dur=") == true)
        #expect(first.header("ETag")?.hasPrefix("\"t") == true && first.header("Last-Modified") != nil)
        let again = try f.get("/img/a.jpg?w=100")
        #expect(again.header("X-Cache") == "memory" && again.header("ETag") == first.header("ETag") && again.body == first.body)
        // Three more sizes at once: the original is already in the originals tier.
        let port = f.port
        let statuses = concurrently(3) { i in (try? RawHTTPClient(port: port, timeout: 30).request("GET", "/img/a.jpg?w=\(120 + 20 * i)").status) ?? 0 }
        #expect(statuses == [200, 200, 200])
        #expect(try f.s3Requests("get") == 1)
        #expect(try f.s3Requests("head", "ok") == 0)
        // The same thumbnail from another replica (same bucket, key and ETag): the same ETag.
        let other = try S3LibraryFixture(store: store, bucket: f.bucket, prefix: "lib")
        #expect(try other.get("/img/a.jpg?w=100").header("ETag") == first.header("ETag"))
        // Format and Range work on thumbnails as on library ones.
        #expect(try f.get("/img/b.png?w=60&fm=webp").header("Content-Type") == "image/webp")
        #expect(try f.get("/img/a.jpg?w=100", ["Range: bytes=0-9"]).status == 206)
    }

    @Test func theListingSpansSeveralPagesOfListObjectsV2() throws {
        let clock = ManualClock()
        let bucket = try store.makeBucket()
        var objects: [String: [UInt8]] = [:]
        for i in 0..<7 { objects[String(format: "set/img-%02d.png", i)] = try ImageSynthesis.solid(width: 10 + i, height: 20, color: [1, 2, 3]).encode(.png) }
        objects["set/notes.txt"] = Array("text".utf8)
        objects["set/.hidden.png"] = objects["set/img-00.png"]
        objects["set/empty//x.png"] = objects["set/img-00.png"]
        objects["elsewhere.png"] = objects["set/img-00.png"]
        try store.put(bucket, objects)
        let f = try S3LibraryFixture(store: store, bucket: bucket, clock: clock) {
            $0.library.s3.listPageSize = 3
            $0.library.s3.ttl = 30
        }
        let first = try f.get("/v1/images?limit=100")
        #expect(first.status == 200, "\(first.text)")
        let items = try #require(try json(first) as? [[String: Any]])
        #expect(items.compactMap { $0["id"] as? String } == ["elsewhere.png"] + (0..<7).map { String(format: "set/img-%02d.png", $0) })
        #expect(items[1]["width"] as? Int == 10 && items[1]["format"] as? String == "png")
        #expect(items.allSatisfy { ($0["placeholder"] as? String)?.isEmpty == false && ($0["color"] as? String)?.hasPrefix("#") == true })
        #expect(first.header("X-Total-Count") == "8")
        // 11 keys, 3 a page: four pages.
        #expect(try f.s3Requests("list") == 4)
        // Cached for the ttl, then listed again; the ETag changes with the bucket.
        let etag = try #require(first.header("ETag"))
        try store.put(bucket, ["set/img-07.png": try ImageSynthesis.solid(width: 5, height: 5, color: [9, 9, 9]).encode(.png)])
        #expect(try f.get("/v1/images?limit=100", ["If-None-Match: \(etag)"]).status == 304)
        #expect(try f.s3Requests("list") == 4)
        clock.advance(by: 31)
        let relisted = try f.get("/v1/images?limit=100", ["If-None-Match: \(etag)"])
        #expect(relisted.status == 200 && relisted.header("X-Total-Count") == "9")
        // The listing told the versions: thumbnails of listed images need no HEAD, and their
        // originals were fetched once, for the placeholders.
        let gets = try f.s3Requests("get")
        #expect(try f.get("/img/set/img-03.png?w=8").header("X-Cache") == "miss")
        #expect(try f.s3Requests("get") == gets && f.s3Requests("head") == 0)
        // The gallery shows them.
        let page = try f.get("/")
        #expect(page.status == 200 && page.text.contains("img-06.png"))
    }

    @Test func aReplacedObjectIsSeenOnceTheTTLHasPassed() throws {
        let clock = ManualClock()
        let bucket = try store.makeBucket()
        try store.put(bucket, ["p.jpg": S3Images.jpeg(400, 300, seed: 11)])
        let f = try S3LibraryFixture(store: store, bucket: bucket, clock: clock) { $0.library.s3.ttl = 5 }
        let before = try f.get("/img/p.jpg?w=80")
        #expect(try before.status == 200 && ImageHeader.read(before.body).height == 60)
        let replacement = S3Images.jpeg(400, 400, seed: 12)
        try store.put(bucket, ["p.jpg": replacement])
        // Within the ttl the version known stands: the thumbnail is a hit, no request is made.
        let within = try f.get("/img/p.jpg?w=80")
        #expect(within.header("X-Cache") == "memory" && within.header("ETag") == before.header("ETag"))
        #expect(try f.s3Requests("head") == 0)
        // The original goes to the store every time: already the new one.
        #expect(try f.get("/img/p.jpg").body == replacement)
        clock.advance(by: 6)
        let after = try f.get("/img/p.jpg?w=80")
        #expect(after.status == 200 && after.header("ETag") != before.header("ETag"))
        #expect(try ImageHeader.read(after.body).height == 80)
        let info = try #require(try json(f.get("/v1/images/p.jpg")) as? [String: Any])
        #expect(try info["height"] as? Int == 400 && info["etag"] as? String == store.etag(bucket, "p.jpg"))

        // ttl 0: every miss asks with a HEAD, and a kept thumbnail of an unchanged object is
        // answered from its tier without a download.
        let eager = try S3LibraryFixture(store: store, bucket: bucket, clock: clock) { $0.library.s3.ttl = 0 }
        #expect(try eager.get("/img/p.jpg?w=50").header("X-Cache") == "miss")
        let checked = try eager.get("/img/p.jpg?w=50")
        #expect(checked.header("X-Cache") == "memory")
        // One HEAD (the held thumbnail's check) and no second download. Under load the held
        // answer may go out after 0.5 s, before the HEAD is back and counted: wait for it.
        #expect(eventually(timeout: 10) { (try? eager.s3Requests("head")) == 1 })
        #expect(try eager.s3Requests("head") == 1 && eager.s3Requests("get") == 1)
        try store.put(bucket, ["p.jpg": S3Images.jpeg(200, 100, seed: 13)])
        let now = try eager.get("/img/p.jpg?w=50")
        #expect(try now.header("X-Cache") == "miss" && ImageHeader.read(now.body).height == 25)
    }

    @Test func watermarksComeFromTheBucketAndAReplacedOneIsSeenAfterTheTTL() throws {
        let clock = ManualClock()
        let bucket = try store.makeBucket()
        let black = try ImageSynthesis.solid(width: 40, height: 40, color: [0, 0, 0, 255]).encode(.png)
        try store.put(bucket, ["p.jpg": S3Images.jpeg(400, 300, seed: 21), "marks/logo.png": black])
        let f = try S3LibraryFixture(store: store, bucket: bucket, clock: clock) { $0.library.s3.ttl = 5 }
        let target = "/img/p.jpg?w=200&fm=png&wm=marks/logo.png&wmpos=nw&wmpad=0&wmscale=0.2"
        // Never seen: fetched on a worker first, then drawn.
        let marked = try f.get(target)
        #expect(marked.status == 200)
        #expect(try VipsImage.decode(marked.body).pixel(x: 5, y: 5).prefix(3).allSatisfy { $0 < 15 })
        #expect(try f.get("/img/p.jpg?w=200&wm=marks/none.png").status == 400)
        let red = try ImageSynthesis.solid(width: 40, height: 40, color: [255, 0, 0, 255]).encode(.png)
        try store.put(bucket, ["marks/logo.png": red])
        // Within the ttl the watermark's known version stands (a hit); after it, one request
        // sets off the check and the next draws the new watermark.
        #expect(try f.get(target).header("X-Cache") == "memory")
        clock.advance(by: 6)
        #expect(try f.s3Requests("get") == 2)
        _ = try f.get(target)
        // Waits for the worker's HEAD and fetch of the new watermark (an event, polled).
        for _ in 0..<400 where try f.s3Requests("get") < 3 { usleep(50_000) }
        #expect(try f.s3Requests("head") >= 1 && f.s3Requests("get") == 3)
        let redrawn = try f.get(target)
        #expect(redrawn.header("ETag") != marked.header("ETag") && redrawn.header("X-Cache") == "miss")
        let corner = try VipsImage.decode(redrawn.body).pixel(x: 5, y: 5)
        #expect(corner[0] > 200 && corner[1] < 60, "the red mark: \(corner)")
    }

    @Test func theLoremPicsumRoutesServeTheBucket() throws {
        let f = try fixture()
        let list = try f.get("/v2/list?limit=2")
        let items = try #require(try json(list) as? [[String: Any]])
        #expect(list.status == 200 && items.count == 2 && list.header("Link")?.contains("rel=\"next\"") == true)
        let id = try #require(items.first?["id"] as? String)
        let image = try f.get("/id/\(id)/80/60.webp")
        #expect(image.status == 200 && image.header("Picsum-ID") == id && image.header("Content-Type") == "image/webp")
        let header = try ImageHeader.read(image.body)
        #expect(header.width == 80 && header.height == 60)
        let random = try f.get("/80/60")
        #expect(random.status == 302 && random.header("Location")?.hasPrefix("/id/") == true)
    }

    @Test func pathRulesKeepEveryKeyOutsideThePrefixOutOfReach() throws {
        let f = try fixture()
        for target in ["/img/nope.jpg", "/img/nope.jpg?w=10", "/img/../secret.jpg", "/img/%2e%2e/secret.jpg", "/img/sub/../../secret.jpg",
                       "/img/.hidden.jpg", "/img/sub//c.jpg", "/img//secret.jpg", "/v1/images/nope.jpg", "/v1/images/%2E%2E/secret.jpg"] {
            let response = try f.get(target)
            #expect(response.status == 404 && response.header("Content-Type") == "application/problem+json", "\(target): \(response.status)")
        }
        #expect(try f.get("/img/a%zz.jpg").status == 400)
        #expect(try f.get("/img/notes.txt").status == 415)
        #expect(try f.get("/img/notes.txt?w=10").status == 415)
        let listed = try #require(try json(f.get("/v1/images?limit=100")) as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["id"] as? String }) == ["a.jpg", "b.png", "space name.jpg", "sub/c.jpg"])
    }

    @Test func anObjectOverTheSizeLimitIsRefused() throws {
        let f = try fixture { $0.limits.maxSourceBytes = 200_000 }
        let original = try f.get("/img/big.jpg")
        #expect(original.status == 413 && original.header("Content-Type") == "application/problem+json")
        #expect(try f.get("/img/big.jpg?w=50").status == 413)
        #expect(try f.get("/img/a.jpg?w=50").status == 200)
        #expect(try f.s3Requests("get", "too_large") == 2)
    }

    @Test func imageInfoAndPurge() throws {
        let f = try fixture { $0.admin.token = "s3-purge-token-0123456789" }
        let info = try f.get("/v1/images/sub/c.jpg")
        let fields = try #require(try json(info) as? [String: Any])
        #expect(fields["width"] as? Int == 240 && fields["height"] as? Int == 320 && fields["format"] as? String == "jpeg")
        #expect(try fields["etag"] as? String == store.etag(f.bucket, "lib/sub/c.jpg") && fields["url"] as? String == "/img/sub/c.jpg")
        #expect((fields["placeholder"] as? String)?.isEmpty == false)
        let etag = try #require(info.header("ETag"))
        #expect(try f.get("/v1/images/sub/c.jpg", ["If-None-Match: \(etag)"]).status == 304)
        // A purge removes the variants, the original and the faces the info found (both tiers):
        // the next request fetches it again.
        #expect(try f.get("/img/sub/c.jpg?w=40").header("X-Cache") == "miss")
        let gets = try f.s3Requests("get")
        let purged = try f.get("/v1/purge?path=sub/c.jpg", ["Authorization: Bearer s3-purge-token-0123456789"], method: "POST")
        let removed = try #require((try json(purged) as? [String: Int])?["removed"])
        #expect(purged.status == 200 && removed == 6, "variant, original and faces, in memory and on disk: \(removed)")
        #expect(try f.get("/img/sub/c.jpg?w=40").header("X-Cache") == "miss")
        #expect(try f.s3Requests("get") == gets + 1)
    }

    /// The real `thumbd serve`, its keys from the environment: neither key shows in its log,
    /// its metrics or its problems.
    @Test func theKeysShowNowhere() throws {
        let bucket = try libraryBucket()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-s3-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = Int.random(in: 20_000...32_000)
        var environment = ProcessInfo.processInfo.environment.merging(store.environment(bucket: bucket, prefix: "lib")) { $1 }
        environment["THUMBD_LOGGING_LEVEL"] = "trace"
        let binary = S3TestServer.repository.appendingPathComponent(".build/debug/thumbd").path
        let log = folder.appendingPathComponent("log").path
        let started = try runProgram("/bin/sh", ["-c", "'\(binary)' serve --host 127.0.0.1 --port \(port) --cache-dir '\(folder.path)/cache' > '\(log)' 2>&1 & echo $!"],
                                     environment: environment)
        let pid = try #require(Int32(started.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGTERM) }
        #expect(eventually(timeout: 20) { (try? RawHTTPClient(port: port).request("GET", "/health").status) == 200 })
        var seen = ""
        for target in ["/img/a.jpg", "/img/a.jpg?w=50", "/img/nope.jpg", "/img/notes.txt", "/v1/images", "/v1/images/b.png", "/metrics"] {
            let response = try RawHTTPClient(port: port, timeout: 30).request("GET", target)
            seen += String(decoding: response.body.prefix(100_000), as: UTF8.self)
            seen += response.headers.map { "\($0.name): \($0.value)\n" }.joined()
        }
        #expect(seen.contains("thumbd_s3_requests_total"))
        kill(pid, SIGTERM)
        #expect(eventually(timeout: 20) { ClusterTests.exited(pid) })
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("S3 library s3://\(bucket)/lib/") && logged.contains("/img/nope.jpg"), "\(logged.prefix(2000))")
        for secret in [store.secretKey, store.accessKey] {
            #expect(!logged.contains(secret) && !seen.contains(secret))
        }
    }

    /// Wrong keys or a missing bucket stop `serve` with the bucket and S3's error code.
    @Test(arguments: [("secret", "SignatureDoesNotMatch"), ("access", "InvalidAccessKeyId"), ("bucket", "NoSuchBucket")])
    func aRefusedStartNamesTheBucketAndTheCode(_ wrong: String, _ code: String) throws {
        let bucket = wrong == "bucket" ? "missing-bucket" : try store.makeBucket()
        var environment = ProcessInfo.processInfo.environment.merging(store.environment(bucket: bucket)) { $1 }
        if wrong == "secret" { environment["THUMBD_S3_SECRET_KEY"] = "wrong-secret-0123456789" }
        if wrong == "access" { environment["THUMBD_S3_ACCESS_KEY"] = "WRONGACCESSKEY0000" }
        let binary = S3TestServer.repository.appendingPathComponent(".build/debug/thumbd").path
        let result = try runProgram(binary, ["serve", "--host", "127.0.0.1", "--port", "0", "--cache-dir",
                                             FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-s3-\(UUID())").path],
                                    environment: environment, timeout: 30)
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains(bucket) && result.errors.contains(code), "\(result.errors)")
        #expect(!result.errors.contains("wrong-secret-0123456789") && !result.errors.contains(store.secretKey))
    }
}
