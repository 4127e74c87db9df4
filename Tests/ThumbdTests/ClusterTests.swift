import Foundation
import Imaging
import Synchronization
import Testing
import TestSupport
import WireCoding

/// Three thumbd processes behind a real nginx hashing the request URI consistently, run by
/// scripts/cluster.sh on loopback: each thumbnail is made once, a replica that dies or
/// restarts costs no client request, and a fourth replica takes about a quarter of the URIs.
@Suite(.serialized) struct ClusterTests {
    static let root = PackageRoot.url

    /// A cluster in a temporary folder, on free loopback ports, with the debug thumbd.
    final class Cluster: @unchecked Sendable {
        let folder: URL
        /// The library the replicas share: a folder, or `s3://BUCKET/` on `store`.
        let library: String
        /// The store's settings, for a library in a bucket, and any other `THUMBD_*` settings.
        let storeEnvironment: [String: String]
        let balancerPort: Int
        let replicaPort: Int
        var balancer: String { "http://127.0.0.1:\(balancerPort)" }

        /// `images` photos in a library folder, or in a new bucket of `store`.
        init(images: Int, store: S3TestServer? = nil, environment: [String: String] = [:]) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-cluster-\(UUID().uuidString)")
            let photos = try (0..<images).map { i in
                ("p\(i).jpg", try ImageSynthesis.pattern(width: 320, height: 240, seed: 100 + i).encode(.jpeg))
            }
            if let store {
                let bucket = try store.makeBucket()
                try store.put(bucket, Dictionary(uniqueKeysWithValues: photos))
                library = "s3://\(bucket)/"
                storeEnvironment = store.environment(bucket: bucket).merging(environment) { $1 }
            } else {
                let folderLibrary = folder.appendingPathComponent("library")
                try FileManager.default.createDirectory(at: folderLibrary, withIntermediateDirectories: true)
                for (name, bytes) in photos { try Data(bytes).write(to: folderLibrary.appendingPathComponent(name)) }
                library = folderLibrary.path
                storeEnvironment = environment
            }
            // Six consecutive ports for the balancer and up to five replicas, free when picked (a
            // Ceph of another suite holds some in the same range).
            let first = try #require(freeConsecutivePorts(6))
            balancerPort = first
            replicaPort = first + 1
        }

        @discardableResult
        func script(_ arguments: String...) throws -> String {
            var environment = ProcessInfo.processInfo.environment.merging(storeEnvironment) { $1 }
            environment["CLUSTER_DIR"] = folder.appendingPathComponent("run").path
            environment["CLUSTER_PORT"] = String(balancerPort)
            environment["REPLICA_PORT"] = String(replicaPort)
            environment["LIBRARY"] = library
            environment["THUMBD_BIN"] = ClusterTests.root.appendingPathComponent(".build/debug/thumbd").path
            environment["THUMBD_LOGGING_ACCESS"] = "false"
            environment["THUMBD_ADMIN_TOKEN"] = "cluster-test-token-0123456789"
            let result = try runProgram(ClusterTests.root.appendingPathComponent("scripts/cluster.sh").path, arguments,
                                        environment: environment)
            guard result.status == 0 else { throw ScriptFailed(arguments: arguments, output: result.output + result.errors) }
            return result.output
        }

        func pid(ofReplica i: Int) throws -> Int32 {
            let text = try String(contentsOf: folder.appendingPathComponent("run/thumbd-\(i).pid"), encoding: .utf8)
            return try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }

        /// The sum of one counter's series on replica `i`'s /metrics whose labels contain `label`.
        func counter(_ name: String, _ label: String, ofReplica i: Int) throws -> Int {
            let text = try RawHTTPClient(port: replicaPort + i - 1).request("GET", "/metrics").text
            return text.split(separator: "\n")
                .filter { $0.hasPrefix(name + "{") && $0.contains(label) }
                .compactMap { Double($0.split(separator: " ").last ?? "").map(Int.init) }
                .reduce(0, +)
        }

        /// Transforms run by replica `i`.
        func transforms(ofReplica i: Int) throws -> Int { try counter("thumbd_transforms_total", "result=\"ok\"", ofReplica: i) }

        /// Image requests replica `i` answered since it started.
        func imageRequests(ofReplica i: Int) throws -> Int { try counter("thumbd_http_requests_total", "route=\"img\"", ofReplica: i) }

        func transforms(replicas: ClosedRange<Int>) throws -> Int { try replicas.map { try transforms(ofReplica: $0) }.reduce(0, +) }

        deinit {
            _ = try? script("stop")
            try? FileManager.default.removeItem(at: folder)
        }
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        let arguments: [String]
        let output: String
        var description: String { "cluster.sh \(arguments.joined(separator: " ")) failed: \(output)" }
    }

    static let targets = (0..<30).flatMap { image in (0..<10).map { "/img/p\(image).jpg?w=\(40 + 8 * $0)" } }

    /// Requests every target through the balancer on one keep-alive connection; returns the
    /// X-Cache of each and the failures (anything but a 200). Like URLSession and curl, a GET
    /// that finds its reused connection closed (the balancer reloading closes idle ones) is
    /// sent once more on a new connection; a failure on a fresh connection counts.
    static func pass(_ cluster: Cluster, _ targets: [String] = targets) -> (cache: [String], failures: [String]) {
        var cache: [String] = [], failures: [String] = []
        var client: RawHTTPClient?
        var reused = false
        for target in targets {
            var attempt = 0
            while true {
                attempt += 1
                do {
                    if client == nil { client = try RawHTTPClient(port: cluster.balancerPort, timeout: 30); reused = false }
                    let response = try client!.request("GET", target)
                    reused = true
                    if response.status == 200 { cache.append(response.header("X-Cache") ?? "-") } else { failures.append("\(target): \(response.status)") }
                    if response.header("Connection") == "close" { client = nil }
                } catch {
                    client = nil
                    if reused && attempt == 1 && Self.noResponseStarted(error) { continue }
                    failures.append("\(target): \(error)")
                }
                break
            }
        }
        return (cache, failures)
    }

    /// Whether a process has exited: gone, or a zombie its new parent has not reaped yet.
    static func exited(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// Whether a request failed before any byte of its response: the connection was closed or
    /// reset under it, which a client may retry for an idempotent request (RFC 9110, 9.2.2).
    static func noResponseStarted(_ error: any Error) -> Bool {
        let text = "\(error)"
        return text.contains("closed after 0 bytes") || text.contains("errno \(ECONNRESET)") || text.hasPrefix("send failed")
    }

    /// A client that keeps requesting every target through the balancer until stopped.
    final class Load: @unchecked Sendable {
        let failures = Mutex<[String]>([])
        let served = Mutex(0)
        private let stopped = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(_ cluster: Cluster) {
            Thread { [self] in
                while !stopped.load(ordering: .relaxed) {
                    let (cache, failed) = ClusterTests.pass(cluster)
                    served.withLock { $0 += cache.count }
                    failures.withLock { $0 += failed }
                }
                done.signal()
            }.start()
        }

        func stop() -> [String] {
            stopped.store(true, ordering: .relaxed)
            done.wait()
            return failures.withLock { $0 }
        }
    }

    /// Three replicas: 300 distinct thumbnails twice, made exactly once between the three, then
    /// all hits, with one ETag per thumbnail on every replica. Returns each replica's share.
    static func eachThumbnailIsMadeOnce(_ cluster: Cluster) throws -> [Int] {
        let url = try cluster.script("start", "3").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url == cluster.balancer)
        let first = Self.pass(cluster)
        #expect(first.failures.isEmpty, "\(first.failures.prefix(3))")
        #expect(try cluster.transforms(replicas: 1...3) == 300)
        let shares = try (1...3).map { try cluster.transforms(ofReplica: $0) }
        #expect(shares.allSatisfy { $0 > 40 }, "the hash spreads the URIs: \(shares)")
        let second = Self.pass(cluster)
        #expect(second.failures.isEmpty && second.cache.allSatisfy { $0 == "memory" || $0 == "disk" }, "\(Set(second.cache))")
        #expect(try cluster.transforms(replicas: 1...3) == 300)

        // Every replica gives one thumbnail the same ETag (same source, same options).
        let etags = Set(try (0..<3).map { try RawHTTPClient(port: cluster.replicaPort + $0).request("GET", Self.targets[7]).header("ETag") })
        #expect(etags.count == 1 && etags.first! != nil)
        return shares
    }

    /// Replica 2 killed outright while a client keeps going: nginx retries on the next replica,
    /// which makes (only) the dead one's share; no request fails. Returns how many were made again.
    static func aKilledReplicaFailsNoRequest(_ cluster: Cluster, shares: [Int]) throws -> Int {
        let load = Load(cluster)
        settle(milliseconds: 300)
        // Counted from the kill: a fast machine finishes several passes of hits while settling,
        // and every target must be asked again after the kill for the dead share to be remade.
        let servedBeforeKill = load.served.withLock { $0 }
        kill(try cluster.pid(ofReplica: 2), SIGKILL)
        #expect(eventually(timeout: 30) { load.served.withLock { $0 } >= servedBeforeKill + 700 })
        let failuresAfterKill = load.stop()
        #expect(failuresAfterKill.isEmpty, "\(failuresAfterKill.prefix(3))")
        let remade = try cluster.transforms(replicas: 1...1) + cluster.transforms(ofReplica: 3) - (shares[0] + shares[2])
        #expect(remade >= shares[1] / 2 && remade <= shares[1] + 15, "remade \(remade), the dead replica had \(shares[1])")
        return remade
    }

    @Test func eachThumbnailIsMadeOnceAndReplicasComeAndGoWithoutAFailedRequest() throws {
        let cluster = try Cluster(images: 30)
        let shares = try Self.eachThumbnailIsMadeOnce(cluster)
        let remade = try Self.aKilledReplicaFailsNoRequest(cluster, shares: shares)

        // Back to three, then a rolling restart with SIGTERM while a client keeps going. As in
        // production, the next replica goes only once the balancer sends the restarted one
        // traffic again (nginx retries a failed replica after fail_timeout): stopping them
        // faster leaves nginx no live replica, and it answers 502.
        try cluster.script("start", "3")
        let rolling = Load(cluster)
        #expect(eventually(timeout: 30) { (try? cluster.imageRequests(ofReplica: 2)) ?? 0 > 0 }, "replica 2 takes traffic again")
        for i in 1...3 {
            let pid = try cluster.pid(ofReplica: i)
            kill(pid, SIGTERM)
            #expect(eventually(timeout: 30) { Self.exited(pid) }, "replica \(i) drained and exited")
            try cluster.script("start", "3")
            #expect(eventually(timeout: 30) { (try? cluster.imageRequests(ofReplica: i)) ?? 0 > 0 }, "replica \(i) takes traffic again")
        }
        let servedRolling = rolling.served.withLock { $0 }
        let failuresRolling = rolling.stop()
        #expect(failuresRolling.isEmpty, "\(failuresRolling.prefix(3))")
        #expect(servedRolling > 0)

        // A fourth replica: about a quarter of the URIs move to it (misses there), the rest still
        // hit; hashing modulo the server count would move three quarters. nginx's ring (160
        // CRC32 points per server) gives the fourth 16-34% of these 300 URIs over 1,500
        // random port choices, emulated; the real nginx matched the emulation exactly.
        _ = Self.pass(cluster)  // everything cached on the three again
        try cluster.script("start", "4")
        let after = Self.pass(cluster)
        #expect(after.failures.isEmpty, "\(after.failures.prefix(3))")
        #expect(try cluster.transforms(ofReplica: 4) == after.cache.filter { $0 == "miss" }.count)
        let moved = Double(after.cache.filter { $0 == "miss" }.count) / Double(after.cache.count)
        #expect(moved >= 0.15 && moved <= 0.35, "moved \(moved)")
        // A purge sent to every replica removes one source's variants wherever they landed:
        // the next pass makes exactly those again.
        let purged = try cluster.script("purge", "path=p0.jpg")
        #expect(purged.contains("removed "), "\(purged)")
        let afterPurge = Self.pass(cluster)
        let remadeTargets = zip(Self.targets, afterPurge.cache).filter { $0.1 == "miss" }.map(\.0)
        #expect(afterPurge.failures.isEmpty && remadeTargets == Array(Self.targets.prefix(10)), "\(remadeTargets.prefix(12))")
        print("cluster: shares \(shares), remade after a SIGKILL \(remade), \(servedRolling) requests during the rolling restart, \(Int(moved * 100))% moved to a fourth replica")
    }

    /// The same on an S3 library: the replicas share one bucket (a Ceph RGW of the test's own)
    /// and no library folder; each original is fetched at most once per replica.
    @Test(.ceph) func onS3EachThumbnailIsMadeOnceAndAKilledReplicaFailsNoRequest() throws {
        let cluster = try Cluster(images: 30, store: S3TestServer.current!)
        let shares = try Self.eachThumbnailIsMadeOnce(cluster)
        let fetches = try (1...3).map { try cluster.counter("thumbd_s3_requests_total", "operation=\"get\"", ofReplica: $0) }
        #expect(fetches.allSatisfy { $0 <= 30 }, "one fetch of each original per replica at most: \(fetches)")
        let remade = try Self.aKilledReplicaFailsNoRequest(cluster, shares: shares)
        print("cluster on S3: shares \(shares), originals fetched \(fetches), remade after a SIGKILL \(remade)")
    }
}
