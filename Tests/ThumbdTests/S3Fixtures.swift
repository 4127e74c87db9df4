import Clocks
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import WireCoding

/// A real Ceph RGW, started by `scripts/s3-server.sh` in a folder of its own and stopped at the
/// end; buckets are filled with the real curl, signed with SigV4 as any S3 client signs.
final class S3TestServer: Sendable {
    static let repository = PackageRoot.url

    let directory: URL
    let endpoint: String
    let accessKey: String
    let secretKey: String

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// The store running in `.ceph`'s scope.
    @TaskLocal static var current: S3TestServer?

    static func start() throws -> S3TestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-s3-\(UUID().uuidString.prefix(8))")
        let result = try script("start", directory: directory)
        var exports: [String: String] = [:]
        for line in result.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { exports[String(pair[0])] = String(pair[1]) }
        }
        guard let endpoint = exports["S3_ENDPOINT"], let access = exports["S3_ACCESS_KEY"], let secret = exports["S3_SECRET_KEY"] else {
            throw Failed(description: "s3-server.sh start printed no exports: \(result)")
        }
        return S3TestServer(directory: directory, endpoint: endpoint, accessKey: access, secretKey: secret)
    }

    private init(directory: URL, endpoint: String, accessKey: String, secretKey: String) {
        self.directory = directory
        self.endpoint = endpoint
        self.accessKey = accessKey
        self.secretKey = secretKey
    }

    @discardableResult
    static func script(_ command: String, directory: URL) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["S3_DIR"] = directory.path
        // Little RAM: a test bucket holds a few megabytes.
        environment["S3_MEMORY"] = String(256 << 20)
        let result = try runProgram(repository.appendingPathComponent("scripts/s3-server.sh").path, [command],
                                    environment: environment, timeout: 120)
        guard result.status == 0 else { throw Failed(description: "s3-server.sh \(command) failed: \(result.errors)") }
        return result.output
    }

    func stop() {
        _ = try? Self.script("stop", directory: directory)
        try? FileManager.default.removeItem(at: directory)
    }

    /// "The store is down": radosgw stopped, the objects kept.
    func stopGateway() throws { try Self.script("radosgw-stop", directory: directory) }
    func startGateway() throws { try Self.script("radosgw-start", directory: directory) }

    /// A new bucket with a name of its own.
    func makeBucket() throws -> String {
        let name = "t" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try curl(["-X", "PUT", "\(endpoint)/\(name)"])
        return name
    }

    /// Puts every object in one curl run (parallel transfers).
    func put(_ bucket: String, _ objects: [String: [UInt8]]) throws {
        let folder = directory.appendingPathComponent("uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = ["--parallel", "--parallel-max", "16", "-o", "/dev/null"]
        for (i, (key, bytes)) in objects.enumerated() {
            let file = folder.appendingPathComponent("\(i)")
            try Data(bytes).write(to: file)
            arguments += ["-T", file.path, "\(endpoint)/\(bucket)/\(PercentCoding.encode(key, keepingSlashes: true))"]
        }
        let output = try curl(arguments + ["-w", "%{http_code}\n"])
        let codes = output.split(separator: "\n")
        guard codes.count == objects.count, codes.allSatisfy({ $0 == "200" }) else {
            throw Failed(description: "putting \(objects.count) objects answered \(codes)")
        }
    }

    func delete(_ bucket: String, _ key: String) throws {
        try curl(["-X", "DELETE", "\(endpoint)/\(bucket)/\(PercentCoding.encode(key, keepingSlashes: true))"])
    }

    /// The object's ETag as the store sends it.
    func etag(_ bucket: String, _ key: String) throws -> String {
        let head = try curl(["-I", "\(endpoint)/\(bucket)/\(PercentCoding.encode(key, keepingSlashes: true))"])
        let line = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }
        return String(line?.dropFirst(5) ?? "").trimmingCharacters(in: .whitespaces)
    }

    @discardableResult
    func curl(_ arguments: [String]) throws -> String {
        let result = try runProgram("/usr/bin/curl", ["-sS", "--no-progress-meter", "-f", "--aws-sigv4", "aws:amz:us-east-1:s3",
                                                      "--user", "\(accessKey):\(secretKey)",
                                                      "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"] + arguments, timeout: 60)
        guard result.status == 0 else { throw Failed(description: "curl \(arguments.prefix(3)) failed (\(result.status)): \(result.errors)") }
        return result.output
    }

    /// The settings a thumbd serving `s3://bucket/prefix` from this store needs.
    func configure(_ config: inout ThumbdConfig, bucket: String, prefix: String = "") {
        config.library.root = "s3://\(bucket)/\(prefix)"
        config.library.s3.endpoint = endpoint
        config.library.s3.accessKey = accessKey
        config.library.s3.secretKey = secretKey
    }

    /// The same as `THUMBD_*` variables, for a thumbd process.
    func environment(bucket: String, prefix: String = "") -> [String: String] {
        ["THUMBD_LIBRARY_ROOT": "s3://\(bucket)/\(prefix)", "THUMBD_LIBRARY_S3_ENDPOINT": endpoint,
         "THUMBD_S3_ACCESS_KEY": accessKey, "THUMBD_S3_SECRET_KEY": secretKey]
    }
}

/// A suite (or test) trait: one real Ceph RGW for everything in its scope, started before and
/// stopped after; `S3TestServer.current` inside.
struct CephStore: SuiteTrait, TestTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let server = try S3TestServer.start()
        defer { server.stop() }
        try await S3TestServer.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == CephStore {
    static var ceph: Self { CephStore() }
}

/// A thumbd in front of a bucket of the test store (`RawHTTPClient` on its port).
final class S3LibraryFixture: @unchecked Sendable {
    let store: S3TestServer
    let bucket: String
    let cache: URL
    let service: ThumbdService
    var port: Int { service.port }

    init(store: S3TestServer, bucket: String, prefix: String = "", clock: any MonotonicClock = SystemClock(),
         configure: (inout ThumbdConfig) -> Void = { _ in }) throws {
        self.store = store
        self.bucket = bucket
        cache = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-s3-cache-\(UUID().uuidString)")
        var config = ThumbdConfig.forTests(cache: cache)
        store.configure(&config, bucket: bucket, prefix: prefix)
        configure(&config)
        service = try ThumbdService(config: config, clock: clock)
    }

    func get(_ target: String, _ headers: [String] = [], method: String = "GET") throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: port, timeout: 30).request(method, target, headers: headers)
    }

    func metrics() throws -> PrometheusText { try PrometheusText(get("/metrics").text) }

    /// Requests of `operation` (get, head, list) the store answered with `result` so far.
    func s3Requests(_ operation: String, _ result: String = "ok") throws -> Int {
        Int(try metrics().value("thumbd_s3_requests_total", ["operation": operation, "result": result]) ?? 0)
    }

    deinit {
        service.stop()
        try? FileManager.default.removeItem(at: cache)
    }
}

/// Generated images for the test buckets.
enum S3Images {
    static func jpeg(_ width: Int, _ height: Int, seed: Int) -> [UInt8] {
        try! ImageSynthesis.pattern(width: width, height: height, seed: seed).encode(.jpeg)
    }

    static func png(_ width: Int, _ height: Int, seed: Int) -> [UInt8] {
        try! ImageSynthesis.pattern(width: width, height: height, bands: 4, seed: seed).encode(.png)
    }
}
