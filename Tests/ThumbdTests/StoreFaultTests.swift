import Foundation
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// A store that fails the way real ones do, between thumbd and the real radosgw (a
/// `FaultProxy` of the tests' own): a body that trickles, no answer at all, definite refusals,
/// a body cut short. Each fault stays with the requests that meet it: every request is
/// answered within its bounds, the others are served, and the replica asks the store again
/// as soon as it answers.
@Suite(.ceph, .serialized) struct StoreFaultTests {
    var store: S3TestServer { S3TestServer.current! }

    /// The whole-transfer deadline of these tests' thumbd (`origins.timeout`).
    static let deadline = 3.0

    static func photos(_ count: Int, seed: Int) -> [String: [UInt8]] {
        var objects: [String: [UInt8]] = [:]
        for i in 0..<count { objects["p\(i).jpg"] = S3Images.jpeg(160, 120, seed: seed + i) }
        return objects
    }

    /// A thumbd whose S3 library is reached through `proxy`.
    func fixture(_ bucket: String, _ proxy: FaultProxy, configure: (inout ThumbdConfig) -> Void = { _ in }) throws -> S3LibraryFixture {
        try S3LibraryFixture(store: store, bucket: bucket) { config in
            config.library.s3.endpoint = "http://127.0.0.1:\(proxy.port)"
            config.origins.timeout = Self.deadline
            configure(&config)
        }
    }

    func makeProxy() throws -> FaultProxy {
        try FaultProxy(to: try #require(URL(string: store.endpoint)?.port))
    }

    @Test func aTricklingOriginalIsCutWithinItsDeadlineWhileOtherMissesAreServed() throws {
        let bucket = try store.makeBucket()
        let slow = LibraryFixture.fakeJPEG(4096, seed: 7)
        var objects = Self.photos(6, seed: 60)
        objects["slow.jpg"] = slow
        try store.put(bucket, objects)
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let f = try fixture(bucket, proxy)
        proxy.rules = [.init("slow.jpg", .trickle(bytesPerSecond: 5))]

        // A never-held original whose store sends its head at once and its body at 5 bytes a
        // second: cut before thumbd's head left, so the client is told to come back.
        let port = f.port
        let trickled = Thread.detachedResult { () -> (status: Int, retryAfter: String?, seconds: Double) in
            let started = Date()
            let response = try? RawHTTPClient(port: port, timeout: 60).request("GET", "/img/slow.jpg")
            return (response?.status ?? 0, response?.header("Retry-After"), Date().timeIntervalSince(started))
        }
        // While it trickles, the replica's other misses are made.
        usleep(500_000)
        for i in 0..<4 {
            let miss = try f.get("/img/p\(i).jpg?w=60")
            #expect(miss.status == 200 && miss.header("X-Cache") == "miss", "p\(i) while the original trickles: \(miss.status) \(miss.text)")
            usleep(400_000)
        }
        let answer = trickled.wait()
        #expect(answer.status == 503 || answer.status == 504, "the trickling original: \(answer.status)")
        #expect(answer.retryAfter != nil)
        #expect(answer.seconds < Self.deadline + 2, "answered after \(answer.seconds) s")
        // Nothing was kept of it: healed, the next request gets the whole original.
        proxy.rules = []
        #expect(try f.get("/img/slow.jpg").body == slow)
        #expect(try f.get("/img/p5.jpg?w=60").status == 200)
    }

    @Test func aStreamedOriginalThatStallsAfterItsHeadIsClosedShortAndResumes() throws {
        let bucket = try store.makeBucket()
        let large = LibraryFixture.fakeJPEG(256 << 10, seed: 8)
        try store.put(bucket, ["large.jpg": large])
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let f = try fixture(bucket, proxy)
        proxy.rules = [.init("large.jpg", .trickle(bytesPerSecond: 5, after: 64 << 10))]

        let client = try RawHTTPClient(port: f.port, timeout: 60)
        let started = Date()
        try client.send(RawHTTPClient.requestText("GET", "/img/large.jpg"))
        let head = try client.readHead()
        #expect(head.status == 200 && head.header("Content-Length") == String(large.count))
        let body = try client.readToEnd()
        let seconds = Date().timeIntervalSince(started)
        // The head had left: the connection closes after what came, well before the body could.
        #expect(body.count < large.count && body == Array(large.prefix(body.count)), "\(body.count) of \(large.count)")
        #expect(seconds < 15, "closed after \(seconds) s")
        // The client resumes with Range once the store is well.
        proxy.rules = []
        let rest = try f.get("/img/large.jpg", ["Range: bytes=\(body.count)-"])
        #expect(rest.status == 206 && body + rest.body == large)
    }

    @Test func afterAStoreThatAnswersNothingHealsANewMissIsMadeWithinTwoSeconds() throws {
        let bucket = try store.makeBucket()
        try store.put(bucket, Self.photos(12, seed: 80))
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let f = try fixture(bucket, proxy)
        #expect(try f.get("/img/p0.jpg?w=50").status == 200)

        proxy.rules = [.init(.blackhole)]
        let port = f.port
        let answers = concurrently(6) { i -> (status: Int, retryAfter: String?, seconds: Double) in
            let started = Date()
            let response = try? RawHTTPClient(port: port, timeout: 60).request("GET", "/img/p\(i + 1).jpg?w=50")
            return (response?.status ?? 0, response?.header("Retry-After"), Date().timeIntervalSince(started))
        }
        for (i, answer) in answers.enumerated() {
            #expect((answer.status == 503 || answer.status == 504) && answer.retryAfter != nil, "p\(i + 1): \(answer.status)")
            #expect(answer.seconds < Self.deadline * 2 + 2, "p\(i + 1) answered after \(answer.seconds) s")
        }
        // Held thumbnails never wait on the store.
        let held = try f.get("/img/p0.jpg?w=50")
        #expect(held.status == 200 && held.header("X-Cache") == "memory")

        proxy.rules = []
        proxy.dropConnections()
        let healed = Date()
        var made = 0
        while made == 0 && Date().timeIntervalSince(healed) < 10 {
            if (try? f.get("/img/p9.jpg?w=50").status) == 200 { made = 1 } else { usleep(100_000) }
        }
        let seconds = Date().timeIntervalSince(healed)
        #expect(made == 1 && seconds <= 2, "the first miss after the store healed was made after \(seconds) s")
    }

    @Test func definiteAnswersStayDefiniteWhateverTheStoreDidBefore() throws {
        let bucket = try store.makeBucket()
        try store.put(bucket, Self.photos(4, seed: 90))
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let f = try fixture(bucket, proxy)
        // A store that answered nothing lately must not mask what it says now.
        proxy.rules = [.init(.blackhole)]
        _ = concurrently(2) { i in (try? RawHTTPClient(port: f.port, timeout: 60).request("GET", "/img/p\(i).jpg?w=40"))?.status ?? 0 }

        proxy.rules = [.init(.status(403, code: "AccessDenied"))]
        proxy.dropConnections()
        for target in ["/img/p2.jpg", "/img/p2.jpg?w=40", "/v1/images/p2.jpg"] {
            let denied = try f.get(target)
            #expect(denied.status == 502 && denied.text.contains("AccessDenied") && denied.header("Retry-After") == nil,
                    "\(target): \(denied.status) \(denied.text)")
        }
        proxy.rules = [.init(.status(404, code: "NoSuchKey"))]
        for target in ["/img/p3.jpg", "/img/p3.jpg?w=40", "/v1/images/p3.jpg"] {
            let missing = try f.get(target)
            #expect(missing.status == 404 && missing.header("Content-Type") == "application/problem+json", "\(target): \(missing.status) \(missing.text)")
        }
        proxy.rules = [.init(.status(500, code: "InternalError"))]
        for target in ["/img/p3.jpg", "/img/p3.jpg?w=41"] {
            let failing = try f.get(target)
            #expect(failing.status == 503 && failing.header("Retry-After") != nil, "\(target): \(failing.status)")
        }
    }

    @Test func aBodyCutShortIsNeverKeptNorServed() throws {
        let bucket = try store.makeBucket()
        let photo = S3Images.jpeg(640, 480, seed: 99)
        try store.put(bucket, ["cut.jpg": photo])
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let f = try fixture(bucket, proxy)
        proxy.rules = [.init("cut.jpg", .truncate(bytes: photo.count / 2))]
        let cut = try f.get("/img/cut.jpg?w=100")
        #expect(cut.status == 503 && cut.header("Retry-After") != nil, "\(cut.status) \(cut.text)")
        proxy.rules = []
        let whole = try f.get("/img/cut.jpg?w=100")
        #expect(whole.status == 200 && whole.header("X-Cache") == "miss")
        #expect(try f.get("/img/cut.jpg").body == photo)
    }
}

extension Thread {
    /// `body` on a thread of its own; `wait()` gives its result.
    static func detachedResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> DetachedResult<T> {
        let result = DetachedResult<T>()
        Thread { result.set(body()) }.start()
        return result
    }
}

final class DetachedResult<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: T?

    func set(_ value: T) {
        self.value = value
        done.signal()
    }

    func wait() -> T {
        done.wait()
        return value!
    }
}

/// The same faults between thumbd and an origin of `/proxy` (the tests' own `TestOrigin`).
@Suite struct OriginFaultTests {
    static let deadline = 2.0

    func fixture() throws -> LibraryFixture {
        try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
            config.origins.timeout = Self.deadline
        }
    }

    func proxied(_ f: LibraryFixture, _ url: String, _ params: String = "&w=60") throws -> RawHTTPClient.Response {
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try RawHTTPClient(port: f.port, timeout: 60).request("GET", "/proxy?url=\(encoded)\(params)")
    }

    @Test func aTricklingOriginIsCutWithinItsDeadlineWhileOtherOriginalsAreFetched() throws {
        let origin = try TestOrigin()
        let faults = try FaultProxy(to: origin.port)
        defer { faults.stop() }
        let f = try fixture()
        faults.rules = [.init("slow", .trickle(bytesPerSecond: 5))]
        let base = "http://127.0.0.1:\(faults.port)/photo.jpg"
        let trickled = Thread.detachedResult { () -> (status: Int, retryAfter: String?, seconds: Double) in
            let started = Date()
            let response = try? self.proxied(f, base + "?v=slow")
            return (response?.status ?? 0, response?.header("Retry-After"), Date().timeIntervalSince(started))
        }
        usleep(300_000)
        for i in 0..<3 {
            let other = try proxied(f, base + "?v=\(i)")
            #expect(other.status == 200, "v=\(i) while another trickles: \(other.status)")
        }
        let answer = trickled.wait()
        #expect(answer.status == 504 && answer.retryAfter != nil, "the trickling origin: \(answer.status)")
        #expect(answer.seconds < Self.deadline + 1.5, "answered after \(answer.seconds) s")
        // Nothing was kept of it.
        faults.rules = []
        let healed = try proxied(f, base + "?v=slow")
        #expect(healed.status == 200 && healed.header("X-Cache") == "miss")
    }

    @Test func afterAnOriginThatAnswersNothingHealsANewFetchIsMadeWithinTwoSeconds() throws {
        let origin = try TestOrigin()
        let faults = try FaultProxy(to: origin.port)
        defer { faults.stop() }
        let f = try fixture()
        faults.rules = [.init(.blackhole)]
        let base = "http://127.0.0.1:\(faults.port)/photo.jpg"
        let answers = concurrently(4) { i in (try? self.proxied(f, base + "?v=\(i)")).map { ($0.status, $0.header("Retry-After")) } }
        for (i, answer) in answers.enumerated() {
            #expect((answer?.0 == 504 || answer?.0 == 503) && answer?.1 != nil, "v=\(i): \(String(describing: answer))")
        }
        faults.rules = []
        faults.dropConnections()
        let healed = Date()
        var made = false
        while !made && Date().timeIntervalSince(healed) < 10 {
            if (try? proxied(f, base + "?v=healed").status) == 200 { made = true } else { usleep(100_000) }
        }
        let seconds = Date().timeIntervalSince(healed)
        #expect(made && seconds <= 2, "the first fetch after the origin healed was made after \(seconds) s")
    }

    @Test(arguments: [(FaultProxy.Fault.status(403, code: "AccessDenied"), 502, "403"),
                      (.status(404, code: "NoSuchKey"), 404, "no such image")])
    func definiteAnswersStayDefinite(_ fault: FaultProxy.Fault, _ status: Int, _ named: String) throws {
        let origin = try TestOrigin()
        let faults = try FaultProxy(to: origin.port)
        defer { faults.stop() }
        let f = try fixture()
        let base = "http://127.0.0.1:\(faults.port)/photo.jpg"
        // An origin that answered nothing lately must not mask what it says now.
        faults.rules = [.init(.blackhole)]
        _ = concurrently(2) { i in (try? self.proxied(f, base + "?dead=\(i)"))?.status ?? 0 }
        faults.rules = [.init(fault)]
        faults.dropConnections()
        for params in ["", "&w=60"] {
            let answer = try proxied(f, base + "?v=definite", params)
            #expect(answer.status == status && answer.text.contains(named), "\(params): \(answer.status) \(answer.text)")
            #expect(answer.header("Retry-After") == nil)
        }
    }

    @Test func aFailingOriginIsAFailureToRetry() throws {
        let origin = try TestOrigin()
        let faults = try FaultProxy(to: origin.port)
        defer { faults.stop() }
        let f = try fixture()
        faults.rules = [.init(.status(500, code: "InternalError"))]
        for i in 0..<3 {
            let answer = try proxied(f, "http://127.0.0.1:\(faults.port)/photo.jpg?v=\(i)")
            #expect((answer.status == 502 || answer.status == 503) && answer.header("Retry-After") != nil, "v=\(i): \(answer.status)")
        }
    }

    @Test func aBodyCutShortIsNeverKeptNorServed() throws {
        let origin = try TestOrigin()
        let faults = try FaultProxy(to: origin.port)
        defer { faults.stop() }
        let f = try fixture()
        faults.rules = [.init(.truncate(bytes: origin.photo.count / 2))]
        let url = "http://127.0.0.1:\(faults.port)/photo.jpg"
        let cut = try proxied(f, url)
        #expect((cut.status == 502 || cut.status == 504) && cut.header("Retry-After") != nil, "\(cut.status) \(cut.text)")
        faults.rules = []
        #expect(try proxied(f, url).header("X-Cache") == "miss")
        #expect(try proxied(f, url, "").body == origin.photo)
    }
}

/// The same faults between replicas and the shared tier's store: the tier is a cache, so a
/// fault there never fails a thumbnail; each lookup keeps within the tier's own timeout, the
/// tier is skipped while down and asked again as soon as it answers, and a denial is said as
/// what it is.
@Suite(.ceph, .serialized) struct SharedTierFaultTests {
    var store: S3TestServer { S3TestServer.current! }
    static let token = "shared-fault-test-token-0123456789"
    static let photo = S3Images.jpeg(640, 480, seed: 51)

    func replica(_ bucket: String, through proxy: FaultProxy, library: String? = nil) throws -> LibraryFixture {
        try LibraryFixture(files: ["photo.jpg": Self.photo]) { config in
            if let library { config.library.root = library }
            config.cache.shared.root = "s3://\(bucket)/thumbs/"
            config.library.s3.endpoint = "http://127.0.0.1:\(proxy.port)"
            config.library.s3.accessKey = store.accessKey
            config.library.s3.secretKey = store.secretKey
            config.cache.shared.purgeInterval = 0.2
            config.admin.token = Self.token
        }
    }

    static func get(_ replica: LibraryFixture, _ target: String) throws -> (response: RawHTTPClient.Response, seconds: Double) {
        let started = Date()
        let response = try RawHTTPClient(port: replica.port, timeout: 30).request("GET", target)
        return (response, Date().timeIntervalSince(started))
    }

    @Test func aTricklingOrSilentTierNeverHoldsAMissAndIsAskedAgainWhenItHeals() throws {
        let bucket = try store.makeBucket()
        let proxy = try FaultProxy(to: try #require(URL(string: store.endpoint)?.port))
        defer { proxy.stop() }
        let a = try replica(bucket, through: proxy)
        let b = try replica(bucket, through: proxy, library: a.libraryPath)
        // Sizes in the tier for b to find later, one per attempt (a size made here while the
        // tier is skipped is held here after).
        for width in 60..<90 { _ = try Self.get(a, "/img/photo.jpg?w=\(width)") }
        SharedTierTests.shared(a).flush()

        // Object reads trickle: the miss is made here within the tier's timeout.
        proxy.rules = [.init("/thumbs/v1/", .trickle(bytesPerSecond: 5))]
        let trickled = try Self.get(b, "/img/photo.jpg?w=100")
        #expect(trickled.response.status == 200 && trickled.response.header("X-Cache") == "miss")
        #expect(trickled.seconds < SharedStore.Defaults.timeout + 1.5, "\(trickled.seconds) s")

        // Nothing answers: misses are made, the tier is skipped once it is down.
        proxy.rules = [.init(.blackhole)]
        for width in [110, 120, 130, 140] {
            let miss = try Self.get(b, "/img/photo.jpg?w=\(width)")
            #expect(miss.response.status == 200 && miss.response.header("X-Cache") == "miss", "w=\(width)")
            #expect(miss.seconds < SharedStore.Defaults.timeout + 1.5, "w=\(width) after \(miss.seconds) s")
        }
        #expect(try SharedTierTests.counter(b, "thumbd_shared_cache_skipped_total") >= 1)

        // Healed: within 2 s, what another replica wrote is answered from the tier again.
        proxy.rules = []
        proxy.dropConnections()
        let healed = Date()
        var shared = false, width = 60
        while !shared && width < 90 {
            if (try? Self.get(b, "/img/photo.jpg?w=\(width)").response.header("X-Cache")) == "shared" { shared = true } else { usleep(100_000) }
            width += 1
        }
        let seconds = Date().timeIntervalSince(healed)
        #expect(shared && seconds <= 2, "the tier answered again after \(seconds) s")
    }

    @Test func aDenialIsSaidAsWhatItIsAndNeverFailsAThumbnail() throws {
        let bucket = try store.makeBucket()
        let proxy = try FaultProxy(to: try #require(URL(string: store.endpoint)?.port))
        defer { proxy.stop() }
        let a = try replica(bucket, through: proxy)
        proxy.rules = [.init(.status(403, code: "AccessDenied"))]
        for width in [100, 110, 120] {
            let miss = try Self.get(a, "/img/photo.jpg?w=\(width)")
            #expect(miss.response.status == 200 && miss.response.header("X-Cache") == "miss")
        }
        SharedTierTests.shared(a).flush()
        #expect(try SharedTierTests.counter(a, "thumbd_shared_cache_denied_total") >= 3)
        #expect(try SharedTierTests.counter(a, "thumbd_shared_cache_skipped_total") == 0, "a denial is no outage")
        let purge = try RawHTTPClient(port: a.port, timeout: 30).request("POST", "/v1/purge?path=photo.jpg",
                                                                         headers: ["Authorization: Bearer \(Self.token)"])
        #expect(purge.status == 502 && purge.text.contains("AccessDenied") && purge.header("Retry-After") == nil, "\(purge.status) \(purge.text)")
        // This replica's own tiers were purged all the same.
        #expect(try Self.get(a, "/img/photo.jpg?w=100").response.header("X-Cache") == "miss")
    }
}
