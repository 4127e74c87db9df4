import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP
import Imaging
import TestSupport
import Thumbd
import ThumbdCore
import ThumbdKit

/// A real thumbd on an ephemeral loopback port, in front of a temporary library folder (as
/// `Tests/ThumbdTests/Fixtures.swift` makes them), with what the client tests ask of it.
///
/// Tests keep it with `defer { withExtendedLifetime(server) {} }`: ARC may end an object after
/// its last mention, and a test's last mention of the server often comes before the loads that
/// use its port.
final class ThumbdServer: @unchecked Sendable {
    let root: URL
    let service: ThumbdService

    var port: Int { service.port }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// URLs for this server, signed when it requires signatures.
    var builder: ThumbdURLBuilder { ThumbdURLBuilder(baseURL: baseURL, signingKey: service.config.security.key) }

    init(files: [String: [UInt8]] = [:], configure: (inout ThumbdConfig) -> Void = { _ in }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbdkit-test-\(UUID().uuidString)")
        let library = root.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for (path, bytes) in files { try Self.write(path, bytes, into: library) }
        var config = ThumbdConfig()
        config.server.host = "127.0.0.1"
        config.server.port = 0
        config.server.eventLoops = 2
        config.library.root = library.path
        config.library.demo = false
        config.cache.dir = root.appendingPathComponent("server-cache").path
        config.logging.access = false
        config.faces.model = FacePhotos.modelFile
        configure(&config)
        service = try ThumbdService(config: config)
    }

    deinit {
        service.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes (or rewrites) a library file.
    func write(_ path: String, _ bytes: [UInt8]) throws {
        try Self.write(path, bytes, into: root.appendingPathComponent("library"))
    }

    private static func write(_ path: String, _ bytes: [UInt8], into library: URL) throws {
        let url = library.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// A fresh folder for a client's disk tier, removed with the fixture.
    func clientFolder(_ name: String = UUID().uuidString) -> URL {
        root.appendingPathComponent("client-\(name)")
    }

    /// One request over a raw socket, bypassing ThumbdKit entirely.
    func get(_ target: String, headers: [String] = []) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: port, timeout: 60).request("GET", target, headers: headers)
    }

    func metrics() throws -> PrometheusSamples {
        try PrometheusSamples(get("/metrics").text)
    }

    /// `thumbd_http_requests_total{route=..., status=...}`: requests the server answered.
    func requests(route: String = "img", status: Int) throws -> Int {
        Int(try metrics().value("thumbd_http_requests_total", ["route": route, "status": String(status)]))
    }

    /// `thumbd_http_response_bytes_total{route=...}`: body bytes the server sent.
    func responseBytes(route: String = "img") throws -> Int {
        Int(try metrics().value("thumbd_http_response_bytes_total", ["route": route]))
    }
}

/// The samples of a Prometheus text exposition, by name and labels.
struct PrometheusSamples {
    private var samples: [String: Double] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            var name = series
            var labels: [String: String] = [:]
            if let open = series.firstIndex(of: "{"), let close = series.lastIndex(of: "}") {
                name = series[..<open]
                for pair in series[series.index(after: open)..<close].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
            }
            samples[Self.key(String(name), labels)] = value
        }
    }

    /// 0 when the series does not exist (yet).
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples[Self.key(name, labels)] ?? 0
    }

    private static func key(_ name: String, _ labels: [String: String]) -> String {
        name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
    }
}
