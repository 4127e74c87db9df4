import Foundation
import Imaging
import Synchronization
import Testing
import TestSupport

/// Three thumbd processes behind a real nginx hashing the request URI consistently, run by
/// scripts/cluster.sh on loopback: each thumbnail is made once, a replica that dies or
/// restarts costs no client request, and a fourth replica takes about a quarter of the URIs.
@Suite(.serialized) struct ClusterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A cluster in a temporary folder, on free loopback ports, with the debug thumbd.
    final class Cluster: @unchecked Sendable {
        let folder: URL
        let library: URL
        let balancerPort: Int
        let replicaPort: Int
        var balancer: String { "http://127.0.0.1:\(balancerPort)" }

        init(images: Int) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-cluster-\(UUID().uuidString)")
            library = folder.appendingPathComponent("library")
            try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
            for i in 0..<images {
                let bytes = try ImageSynthesis.pattern(width: 320, height: 240, seed: 100 + i).encode(.jpeg)
                try Data(bytes).write(to: library.appendingPathComponent("p\(i).jpg"))
            }
            // Six consecutive free ports: the balancer, then up to five replicas.
            let first = Int.random(in: 20_000...45_000)
            balancerPort = first
            replicaPort = first + 1
        }

        @discardableResult
        func script(_ arguments: String...) throws -> String {
            var environment = ProcessInfo.processInfo.environment
            environment["CLUSTER_DIR"] = folder.appendingPathComponent("run").path
            environment["CLUSTER_PORT"] = String(balancerPort)
            environment["REPLICA_PORT"] = String(replicaPort)
            environment["LIBRARY"] = library.path
            environment["THUMBD_BIN"] = ClusterTests.root.appendingPathComponent(".build/debug/thumbd").path
            environment["THUMBD_LOGGING_ACCESS"] = "false"
            let result = try runProgram(ClusterTests.root.appendingPathComponent("scripts/cluster.sh").path, arguments,
                                        environment: environment)
            guard result.status == 0 else { throw ScriptFailed(arguments: arguments, output: result.output) }
            return result.output
        }

        func pid(ofReplica i: Int) throws -> Int32 {
            let text = try String(contentsOf: folder.appendingPathComponent("run/thumbd-\(i).pid"), encoding: .utf8)
            return try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }

        /// Transforms run by replica `i`, from its /metrics.
        func transforms(ofReplica i: Int) throws -> Int {
            let text = try RawHTTPClient(port: replicaPort + i - 1).request("GET", "/metrics").text
            return text.split(separator: "\n")
                .filter { $0.hasPrefix("thumbd_transforms_total{") && $0.contains("result=\"ok\"") }
                .compactMap { Double($0.split(separator: " ").last ?? "").map(Int.init) }
                .reduce(0, +)
        }

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
    /// X-Cache of each and the failures (anything but a 200).
    static func pass(_ cluster: Cluster, _ targets: [String] = targets) -> (cache: [String], failures: [String]) {
        var cache: [String] = [], failures: [String] = []
        var client = try? RawHTTPClient(port: cluster.balancerPort, timeout: 30)
        for target in targets {
            do {
                if client == nil { client = try RawHTTPClient(port: cluster.balancerPort, timeout: 30) }
                let response = try client!.request("GET", target)
                if response.status == 200 { cache.append(response.header("X-Cache") ?? "-") } else { failures.append("\(target): \(response.status)") }
                if response.header("Connection") == "close" { client = nil }
            } catch {
                failures.append("\(target): \(error)")
                client = nil
            }
        }
        return (cache, failures)
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

    @Test func eachThumbnailIsMadeOnceAndReplicasComeAndGoWithoutAFailedRequest() throws {
        let cluster = try Cluster(images: 30)
        let url = try cluster.script("start", "3").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url == cluster.balancer)

        // 300 distinct thumbnails twice: made exactly once between the three, then all hits.
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

        // Replica 2 killed outright while a client keeps going: nginx retries on the next
        // replica, which makes (only) the dead one's share.
        let load = Load(cluster)
        settle(milliseconds: 300)
        kill(try cluster.pid(ofReplica: 2), SIGKILL)
        #expect(eventually(timeout: 30) { load.served.withLock { $0 } >= 700 })
        let failuresAfterKill = load.stop()
        #expect(failuresAfterKill.isEmpty, "\(failuresAfterKill.prefix(3))")
        let remade = try cluster.transforms(replicas: 1...1) + cluster.transforms(ofReplica: 3) - (shares[0] + shares[2])
        #expect(remade >= shares[1] / 2 && remade <= shares[1] + 15, "remade \(remade), the dead replica had \(shares[1])")

        // Back to three, then a rolling restart with SIGTERM while a client keeps going.
        try cluster.script("start", "3")
        let rolling = Load(cluster)
        for i in 1...3 {
            let pid = try cluster.pid(ofReplica: i)
            kill(pid, SIGTERM)
            #expect(eventually(timeout: 30) { kill(pid, 0) != 0 }, "replica \(i) drained and exited")
            try cluster.script("start", "3")
            settle(milliseconds: 200)
        }
        let servedRolling = rolling.served.withLock { $0 }
        let failuresRolling = rolling.stop()
        #expect(failuresRolling.isEmpty, "\(failuresRolling.prefix(3))")
        #expect(servedRolling > 0)

        // A fourth replica: about a quarter of the URIs move to it (misses there), the rest hit.
        _ = Self.pass(cluster)  // everything cached on the three again
        try cluster.script("start", "4")
        let after = Self.pass(cluster)
        #expect(after.failures.isEmpty)
        let moved = Double(after.cache.filter { $0 == "miss" }.count) / Double(after.cache.count)
        #expect(moved >= 0.15 && moved <= 0.35, "moved \(moved)")
        print("cluster: shares \(shares), remade after a SIGKILL \(remade), \(servedRolling) requests during the rolling restart, \(Int(moved * 100))% moved to a fourth replica")
    }
}
