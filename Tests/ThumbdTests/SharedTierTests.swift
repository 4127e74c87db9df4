import Clocks
import Foundation
import Imaging
import Locking
import Logging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// The shared tier (`cache.shared.root`) on a real Ceph RGW: replicas over one library folder,
/// each with its own memory and disk tiers, sharing thumbnails and purges through the bucket.
@Suite(.ceph, .serialized) struct SharedTierTests {
    var store: S3TestServer { S3TestServer.current! }

    static let photo = S3Images.jpeg(640, 480, seed: 41)
    static let other = S3Images.jpeg(480, 640, seed: 42)
    static let token = "shared-tier-test-token-0123456789"

    /// A replica: a thumbd over `library` (another replica's folder, or its own with the test
    /// photos), with the shared tier in `bucket`.
    func replica(bucket: String, library: String? = nil, cache: URL? = nil, clock: any MonotonicClock = SystemClock(),
                 configure: (inout ThumbdConfig) -> Void = { _ in }) throws -> LibraryFixture {
        try LibraryFixture(files: ["photo.jpg": Self.photo, "other.jpg": Self.other], clock: clock) { config in
            if let library { config.library.root = library }
            if let cache { config.cache.dir = cache.path }
            config.cache.shared.root = "s3://\(bucket)/thumbs/"
            config.library.s3.endpoint = store.endpoint
            config.library.s3.accessKey = store.accessKey
            config.library.s3.secretKey = store.secretKey
            config.cache.shared.purgeInterval = 0.2
            config.admin.token = Self.token
            configure(&config)
        }
    }

    static func shared(_ replica: LibraryFixture) -> SharedTier { replica.service.app.thumbnails.store.shared as! SharedTier }

    static func get(_ replica: LibraryFixture, _ target: String, _ headers: [String] = []) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: replica.port, timeout: 30).request("GET", target, headers: headers)
    }

    static func counter(_ replica: LibraryFixture, _ name: String, _ labels: [String: String] = [:]) throws -> Int {
        Int(try PrometheusText(get(replica, "/metrics").text).value(name, labels) ?? 0)
    }

    @Test func aThumbnailMadeOnOneReplicaIsAnsweredByAnotherWithTheSameBytesAndValidators() throws {
        let bucket = try store.makeBucket()
        let a = try replica(bucket: bucket)
        let b = try replica(bucket: bucket, library: a.libraryPath)
        let made = try Self.get(a, "/img/photo.jpg?w=120&fm=webp")
        #expect(made.status == 200 && made.header("X-Cache") == "miss")
        _ = try Self.get(a, "/img/photo.jpg?w=200")
        Self.shared(a).flush()
        #expect(try Self.counter(a, "thumbd_cache_writes_total", ["tier": "shared"]) == 2)

        let shared = try Self.get(b, "/img/photo.jpg?w=120&fm=webp")
        #expect(shared.status == 200 && shared.header("X-Cache") == "shared")
        #expect(shared.header("Server-Timing") == "cache;desc=shared")
        #expect(shared.body == made.body)
        #expect(shared.header("ETag") == made.header("ETag") && shared.header("Last-Modified") == made.header("Last-Modified"))
        // Stored in the replica's own tiers: the next request is a local hit.
        #expect(try Self.get(b, "/img/photo.jpg?w=120&fm=webp").header("X-Cache") == "memory")
        #expect(try Self.counter(b, "thumbd_transforms_total", ["result": "ok"]) == 0)

        // Range on a shared hit, and a 304 for the ETag another replica gave.
        let whole = try Self.get(a, "/img/photo.jpg?w=200")
        let range = try Self.get(b, "/img/photo.jpg?w=200", ["Range: bytes=10-19"])
        #expect(range.status == 206 && range.header("X-Cache") == "shared" && range.body == Array(whole.body[10...19]))
        let etag = try #require(whole.header("ETag"))
        #expect(try Self.get(b, "/img/photo.jpg?w=200", ["If-None-Match: \(etag)"]).status == 304)
        #expect(try Self.counter(b, "thumbd_cache_requests_total", ["tier": "shared", "result": "hit"]) == 2)

        // What neither holds is made, and a miss of the tier counted.
        #expect(try Self.get(b, "/img/other.jpg?w=90").header("X-Cache") == "miss")
        #expect(try Self.counter(b, "thumbd_cache_requests_total", ["tier": "shared", "result": "miss"]) == 1)
    }

    @Test(arguments: ["truncated", "altered", "another key"])
    func anObjectThatDoesNotDecodeIsNeverServed(_ damage: String) throws {
        let bucket = try store.makeBucket()
        let a = try replica(bucket: bucket)
        let b = try replica(bucket: bucket, library: a.libraryPath)
        let made = try Self.get(a, "/img/photo.jpg?w=150")
        _ = try Self.get(a, "/img/other.jpg?w=150")
        Self.shared(a).flush()
        let objects = try Self.shared(a).store.list(SharedLayout.variants).get()
        #expect(objects.count == 2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-objects-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func download(_ key: String) throws -> [UInt8] {
            let file = folder.appendingPathComponent(UUID().uuidString)
            try store.curl(["-o", file.path, "\(store.endpoint)/\(bucket)/\(key)"])
            return try [UInt8](Data(contentsOf: file))
        }
        let downloaded = try objects.map { ($0.key, try download($0.key)) }
        // photo.jpg's object: the entry's header names its key.
        let target = try #require(downloaded.first { String(decoding: $0.1, as: UTF8.self).contains("img|photo.jpg") })
        let otherObject = try #require(downloaded.first { $0.0 != target.0 })
        var bytes = target.1
        switch damage {
        case "truncated": bytes.removeLast(bytes.count / 3)
        case "altered": bytes[bytes.count - 20] ^= 0x55
        default: bytes = otherObject.1
        }
        let file = folder.appendingPathComponent("damaged")
        try Data(bytes).write(to: file)
        try store.curl(["-T", file.path, "\(store.endpoint)/\(bucket)/\(target.0)"])

        let answer = try Self.get(b, "/img/photo.jpg?w=150")
        #expect(answer.status == 200 && answer.header("X-Cache") == "miss")
        #expect(answer.body == made.body)
        #expect(try Self.counter(b, "thumbd_shared_cache_errors_total") == 1)
    }

    @Test func aStoreThatIsDownIsSkippedAndWritesResumeWhenItIsBack() throws {
        let bucket = try store.makeBucket()
        let clock = ManualClock()
        let a = try replica(bucket: bucket, clock: clock)
        #expect(try Self.get(a, "/img/photo.jpg?w=100").header("X-Cache") == "miss")
        Self.shared(a).flush()
        try store.stopGateway()
        defer { try? store.startGateway() }
        // Held thumbnails are answered, misses made: nothing fails because of the tier.
        #expect(try Self.get(a, "/img/photo.jpg?w=100").header("X-Cache") == "memory")
        for width in [110, 120, 130] {
            let answer = try Self.get(a, "/img/photo.jpg?w=\(width)")
            #expect(answer.status == 200 && answer.header("X-Cache") == "miss")
        }
        Self.shared(a).flush()
        let errors = try Self.counter(a, "thumbd_shared_cache_errors_total")
        let skipped = try Self.counter(a, "thumbd_shared_cache_skipped_total")
        let dropped = try Self.counter(a, "thumbd_shared_cache_dropped_writes_total")
        // Each of the three misses asked the store and failed, or skipped it (paused by a
        // failure before: the purge follower's listing, or another miss); so did their writes.
        #expect(errors + skipped >= 3 && errors + dropped >= 3, "errors \(errors), skipped \(skipped), dropped \(dropped)")
        #expect(try Self.counter(a, "thumbd_cache_writes_total", ["tier": "shared"]) == 1)

        try store.startGateway()
        clock.advance(by: StoreHealth.Defaults.probeInterval + 1)
        // The purge follower wakes with the clock and may be the one probing the store: a write
        // asked meanwhile is skipped, so the miss waits for that probe to end.
        _ = eventually(timeout: 5) { Self.shared(a).store.health.isAnswering }
        #expect(try Self.get(a, "/img/photo.jpg?w=140").header("X-Cache") == "miss")
        Self.shared(a).flush()
        #expect(try Self.counter(a, "thumbd_cache_writes_total", ["tier": "shared"]) == 2)
    }

    /// Following and waiting for confirmations run on the injected clock: a heartbeat is due
    /// only when the clock says so, and a purge's wait ends when the test has moved time past it.
    @Test func purgesAreFollowedAndWaitedForOnTheInjectedClock() throws {
        let bucket = try store.makeBucket()
        let shared = Self.shared(try replica(bucket: bucket)).store
        let clock = ManualClock()
        let logger = Logger(label: "test")
        let publisher = SharedPurges(store: shared, stateFolder: nil, clock: clock, wallClock: SystemWallClock(), logger: logger)
        let follower = SharedPurges(store: shared, stateFolder: nil, clock: clock, wallClock: SystemWallClock(), logger: logger)
        let applied = Locked<[PurgeRecord]>([])
        let following = PurgeFollower(purges: follower, apply: { record in applied.withLock { $0.append(record) } },
                                      clock: clock, logger: logger)
        func alive() throws -> [String] {
            try shared.list(SharedLayout.replicas).get().compactMap { shared.layout.name(of: $0.key, in: SharedLayout.replicas) }
        }
        #expect(following.round())
        #expect(try alive().contains(follower.replica))
        // Gone, and not written again until a heartbeat is due by the clock.
        follower.leave()
        #expect(following.round())
        #expect(try !alive().contains(follower.replica))
        clock.advance(by: SharedPurges.Defaults.heartbeat)
        #expect(following.round())
        #expect(try alive().contains(follower.replica))

        let record = PurgeRecord(target: .remote("https://images.example.com/a.jpg"))
        let name = try #require(publisher.publish(record))
        let started = clock.now()
        let waited = Locked<PurgeOutcome.Replicas?>(nil)
        Thread {
            let replicas = publisher.confirmations(of: name, waitingUpTo: 3)
            waited.withLock { $0 = replicas }
        }.start()
        #expect(eventually(timeout: 60) {
            if waited.withLock({ $0 }) != nil { return true }
            clock.advance(by: SharedPurges.Defaults.confirmationPoll)
            return false
        })
        #expect(waited.withLock { $0 }?.pending == [follower.replica])
        #expect(clock.now() - started >= 3)
        // Applied and confirmed by the follower's next round: nothing left to wait for.
        #expect(following.round())
        #expect(applied.withLock { $0 } == [record])
        let confirmed = publisher.confirmations(of: name, waitingUpTo: 3)
        #expect(confirmed.pending.isEmpty && confirmed.confirmed.contains(follower.replica))
    }

    @Test func aPurgeAtOneReplicaReachesTheSharedTierAndEveryReplica() throws {
        let bucket = try store.makeBucket()
        let a = try replica(bucket: bucket)
        let b = try replica(bucket: bucket, library: a.libraryPath)
        for target in ["/img/photo.jpg?w=100", "/img/photo.jpg?w=160", "/img/other.jpg?w=100"] {
            _ = try Self.get(a, target)
        }
        Self.shared(a).flush()
        for target in ["/img/photo.jpg?w=100", "/img/photo.jpg?w=160", "/img/other.jpg?w=100"] {
            #expect(try Self.get(b, target).header("X-Cache") == "shared")
        }
        let purge = try RawHTTPClient(port: a.port, timeout: 30).request("POST", "/v1/purge?path=photo.jpg",
                                                                         headers: ["Authorization: Bearer \(Self.token)"])
        #expect(purge.status == 200)
        let answer = try JSONSerialization.jsonObject(with: Data(purge.body)) as? [String: Any]
        #expect(answer?["removed"] as? Int == 4)  // two sizes, each in memory and on disk
        #expect(answer?["shared"] as? Int == 2)
        let replicas = answer?["replicas"] as? [String: Any]
        #expect((replicas?["confirmed"] as? [String])?.count == 2, "\(purge.text)")
        #expect((replicas?["pending"] as? [String]) == [], "\(purge.text)")
        // Both replicas make photo.jpg's sizes again; other.jpg is untouched everywhere.
        #expect(try Self.get(b, "/img/photo.jpg?w=100").header("X-Cache") == "miss")
        #expect(try Self.get(a, "/img/photo.jpg?w=160").header("X-Cache") == "miss")
        #expect(try Self.get(b, "/img/other.jpg?w=100").header("X-Cache") == "memory")
        #expect(try Self.get(a, "/img/other.jpg?w=100").header("X-Cache") == "memory")
    }

    @Test func aReplicaThatWasDownDuringAPurgeAppliesItBeforeItServes() throws {
        let bucket = try store.makeBucket()
        let a = try replica(bucket: bucket)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        var b: LibraryFixture? = try replica(bucket: bucket, library: a.libraryPath, cache: cache)
        #expect(try Self.get(b!, "/img/photo.jpg?w=100").header("X-Cache") == "miss")
        #expect(try Self.get(b!, "/img/other.jpg?w=100").header("X-Cache") == "miss")
        b = nil  // stopped: its disk tier keeps both
        let purge = try RawHTTPClient(port: a.port, timeout: 30).request("POST", "/v1/purge?path=photo.jpg",
                                                                         headers: ["Authorization: Bearer \(Self.token)"])
        #expect(purge.status == 200)
        let restarted = try replica(bucket: bucket, library: a.libraryPath, cache: cache)
        #expect(try Self.get(restarted, "/img/photo.jpg?w=100").header("X-Cache") == "miss")
        #expect(try Self.get(restarted, "/img/other.jpg?w=100").header("X-Cache") == "disk")
    }
}

/// Three (then four) thumbd processes behind a real nginx over an S3 library, sharing the tier.
extension SharedTierTests {
    @Test func replicasThatDieAreNewOrAreAddedMakeNothingAgainAndOnePurgeReachesThemAll() throws {
        let tierBucket = try store.makeBucket()
        let cluster = try ClusterTests.Cluster(images: 30, store: store, environment: [
            "THUMBD_CACHE_SHARED_ROOT": "s3://\(tierBucket)/cluster/",
            "THUMBD_CACHE_SHARED_PURGE_INTERVAL": "500ms",
        ])
        func misses(_ pass: (cache: [String], failures: [String])) -> [String] {
            #expect(pass.failures.isEmpty, "\(pass.failures.prefix(3))")
            return zip(ClusterTests.targets, pass.cache).filter { $0.1 == "miss" }.map(\.0)
        }
        func sharedWrites(_ replicas: ClosedRange<Int>) -> Int {
            replicas.map { (try? cluster.counter("thumbd_cache_writes_total", "tier=\"shared\"", ofReplica: $0)) ?? 0 }.reduce(0, +)
        }
        try cluster.script("start", "3")
        #expect(misses(ClusterTests.pass(cluster)).count == 300)
        #expect(eventually(timeout: 30) { sharedWrites(1...3) == 300 }, "every thumbnail written to the shared tier")

        // A replica killed: its share comes from the shared tier, nothing is made again.
        let survivorsMade = try cluster.transforms(ofReplica: 1) + cluster.transforms(ofReplica: 3)
        kill(try cluster.pid(ofReplica: 2), SIGKILL)
        #expect(misses(ClusterTests.pass(cluster)) == [])
        #expect(try cluster.transforms(ofReplica: 1) + cluster.transforms(ofReplica: 3) == survivorsMade)

        // Three fresh replicas (empty memory and disk, as after a deploy): nothing made.
        try cluster.script("stop")
        for i in 1...4 { try? FileManager.default.removeItem(at: cluster.folder.appendingPathComponent("run/cache-\(i)")) }
        try cluster.script("start", "3")
        #expect(misses(ClusterTests.pass(cluster)) == [])
        #expect(try cluster.transforms(replicas: 1...3) == 0)

        // A fourth replica: its share comes from the tier too.
        try cluster.script("start", "4")
        #expect(misses(ClusterTests.pass(cluster)) == [])
        #expect(try cluster.transforms(ofReplica: 4) == 0)

        // One purge through the balancer: p0's ten sizes made once again wherever they hash,
        // nothing else; every live replica confirmed.
        let purge = try RawHTTPClient(port: cluster.balancerPort, timeout: 30)
            .request("POST", "/v1/purge?path=p0.jpg", headers: ["Authorization: Bearer cluster-test-token-0123456789"])
        // Confirmed by the four live replicas; the one killed earlier may still be listed as
        // pending until its heartbeat is 90 s old.
        let replicas = try #require(try JSONSerialization.jsonObject(with: Data(purge.body)) as? [String: Any])["replicas"] as? [String: [String]]
        #expect(purge.status == 200 && replicas?["confirmed"]?.count == 4 && (replicas?["pending"]?.count ?? 9) <= 1, "\(purge.text)")
        #expect(misses(ClusterTests.pass(cluster)) == Array(ClusterTests.targets.prefix(10)))

        // A replica stopped during a purge applies it when it comes back, before it serves.
        let pid = try cluster.pid(ofReplica: 1)
        kill(pid, SIGTERM)
        #expect(eventually(timeout: 30) { ClusterTests.exited(pid) })
        let second = try RawHTTPClient(port: cluster.balancerPort, timeout: 30)
            .request("POST", "/v1/purge?path=p1.jpg", headers: ["Authorization: Bearer cluster-test-token-0123456789"])
        #expect(second.status == 200)
        try cluster.script("start", "4")
        let direct = try ClusterTests.targets[10..<20].map {
            try RawHTTPClient(port: cluster.replicaPort, timeout: 30).request("GET", $0).header("X-Cache") ?? "none"
        }
        #expect(!direct.contains("memory") && !direct.contains("disk"), "\(direct)")
        #expect(misses(ClusterTests.pass(cluster)).allSatisfy { ClusterTests.targets[10..<20].contains($0) })
    }
}

/// A real Varnish (Debian's, with varnish-modules' xkey and deploy/varnish/thumbd.vcl) in front
/// of two replicas behind nginx, sharing the tier: what Varnish caches never reaches thumbd
/// again, and one purge through the balancer empties every tier, the CDN last.
extension SharedTierTests {
    @Test func onePurgeThroughTheBalancerEmptiesVarnishInFront() throws {
        let tierBucket = try store.makeBucket()
        let varnishPort = try #require(freeConsecutivePorts(1))
        let cluster = try ClusterTests.Cluster(images: 4, store: store, environment: [
            "THUMBD_CACHE_SHARED_ROOT": "s3://\(tierBucket)/cdn/",
            "THUMBD_CACHE_SHARED_PURGE_INTERVAL": "500ms",
            "THUMBD_CDN_KIND": "varnish",
            "THUMBD_CDN_PURGE_URL": "http://127.0.0.1:\(varnishPort)",
            "THUMBD_CDN_PURGE_TIMEOUT": "2s",
            "VARNISH_PORT": String(varnishPort),
        ])
        // Two more under a folder, for a folder's purge.
        let bucket = String(cluster.library.dropFirst("s3://".count).dropLast())
        try store.put(bucket, ["trips/t0.jpg": try ImageSynthesis.pattern(width: 320, height: 240, seed: 40).encode(.jpeg),
                               "trips/t1.jpg": try ImageSynthesis.pattern(width: 320, height: 240, seed: 41).encode(.jpeg)])
        try cluster.script("start", "2")
        defer { _ = try? cluster.script("stop") }
        try cluster.script("varnish", "start")
        let targets = (0..<4).flatMap { i in [100, 200, 300].map { "/img/p\(i).jpg?w=\($0)" } }
        func pass() throws -> [String] {
            try targets.map { try RawHTTPClient(port: varnishPort, timeout: 30).request("GET", $0).header("X-Varnish-Cache") ?? "none" }
        }
        func reachedThumbd() throws -> Int { try cluster.imageRequests(ofReplica: 1) + cluster.imageRequests(ofReplica: 2) }
        #expect(try pass() == Array(repeating: "miss", count: 12))
        let reached = try reachedThumbd(), made = try cluster.transforms(replicas: 1...2)
        #expect(made == 12)
        #expect(try pass() == Array(repeating: "hit", count: 12))
        #expect(try reachedThumbd() == reached, "cached in Varnish: the second pass never reaches thumbd")

        let admin = ["Authorization: Bearer cluster-test-token-0123456789"]
        let purge = try RawHTTPClient(port: cluster.balancerPort, timeout: 30).request("POST", "/v1/purge?path=p0.jpg", headers: admin)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(purge.body)) as? [String: Any])
        let cdn = try #require(answer["cdn"] as? [String: Any], "\(purge.text)")
        #expect(purge.status == 200 && cdn["status"] as? String == "purged" && (cdn["tags"] as? [String])?.count == 1, "\(purge.text)")
        let after = try pass()
        #expect(after.prefix(3).allSatisfy { $0 == "miss" } && after.dropFirst(3).allSatisfy { $0 == "hit" }, "\(after)")
        #expect(try cluster.transforms(replicas: 1...2) == made + 3, "p0's three sizes made again, once each")
        #expect(try reachedThumbd() == reached + 3)

        // A folder's purge: both images under it miss in Varnish and are made again; the rest stays.
        let folderTargets = ["/img/trips/t0.jpg?w=100", "/img/trips/t1.jpg?w=100", "/img/p2.jpg?w=100"]
        func folderPass() throws -> [String] {
            try folderTargets.map { try RawHTTPClient(port: varnishPort, timeout: 30).request("GET", $0).header("X-Varnish-Cache") ?? "none" }
        }
        #expect(try folderPass() == ["miss", "miss", "hit"])
        #expect(try folderPass() == ["hit", "hit", "hit"])
        let beforeFolder = try cluster.transforms(replicas: 1...2)
        let folderPurge = try RawHTTPClient(port: cluster.balancerPort, timeout: 30).request("POST", "/v1/purge?folder=trips", headers: admin)
        let folderCDN = (try JSONSerialization.jsonObject(with: Data(folderPurge.body)) as? [String: Any])?["cdn"] as? [String: Any]
        #expect(folderPurge.status == 200 && folderCDN?["status"] as? String == "purged", "\(folderPurge.text)")
        #expect(try folderPass() == ["miss", "miss", "hit"])
        #expect(try cluster.transforms(replicas: 1...2) == beforeFolder + 2)

        // Varnish gone: the purge of thumbd's tiers stands, and the answer says the CDN failed.
        try cluster.script("varnish", "stop")
        let orphan = try RawHTTPClient(port: cluster.balancerPort, timeout: 30).request("POST", "/v1/purge?path=p1.jpg", headers: admin)
        let orphanAnswer = try #require(try JSONSerialization.jsonObject(with: Data(orphan.body)) as? [String: Any])
        #expect(orphan.status == 200 && (orphanAnswer["cdn"] as? [String: Any])?["status"] as? String == "failed", "\(orphan.text)")
    }
}
