import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// Prometheus text, parsed strictly enough to fail on malformed output.
struct PrometheusText {
    /// name -> [sorted label pairs as "k=v,k=v" -> value]
    var samples: [String: [String: Double]] = [:]
    var types: [String: String] = [:]

    init(_ text: String) throws {
        let sample = try Regex(#"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? ([-+0-9.eE]+|NaN|\+Inf|-Inf)$"#)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(String(parts[3])) else {
                    throw ParseError(line: String(line))
                }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let match = try sample.wholeMatch(in: String(line)),
                  let name = match.output[1].substring, let value = match.output[4].substring.flatMap({ Double($0) })
            else { throw ParseError(line: String(line)) }
            var labels: [String] = []
            if let body = match.output[3].substring, !body.isEmpty {
                for pair in body.split(separator: ",") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2, kv[1].hasPrefix("\""), kv[1].hasSuffix("\"") else { throw ParseError(line: String(line)) }
                    labels.append("\(kv[0])=\(kv[1].dropFirst().dropLast())")
                }
            }
            samples[String(name), default: [:]][labels.sorted().joined(separator: ",")] = value
        }
    }

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples[name]?[labels.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")]
    }

    struct ParseError: Error { let line: String }
}

@Suite struct MetricsTests {
    @Test func countersFollowAKnownSequenceOfRequests() throws {
        let photo = try ImageSynthesis.pattern(width: 400, height: 300).encode(.jpeg)
        let f = try LibraryFixture(files: ["p.jpg": photo])
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        #expect(try get("/img/p.jpg").status == 200)
        #expect(try get("/img/p.jpg?w=100").header("X-Cache") == "miss")
        #expect(try get("/img/p.jpg?w=100").header("X-Cache") == "memory")
        #expect(try get("/img/missing.jpg").status == 404)
        #expect(try get("/img/p.jpg?w=0").status == 400)
        #expect(try get("/health").status == 200)
        // A worker answers before it counts itself idle: let it finish.
        for _ in 0..<400 where f.service.app.pool.running > 0 { Thread.sleep(forTimeInterval: 0.005) }
        // ...and let the server see the earlier clients hang up.
        for _ in 0..<400 where f.service.server.openConnections > 0 { Thread.sleep(forTimeInterval: 0.005) }
        let scrape = try get("/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let m = try PrometheusText(scrape.text)

        #expect(m.value("thumbd_http_requests_total", ["route": "img", "status": "200"]) == 3)
        #expect(m.value("thumbd_http_requests_total", ["route": "img", "status": "404"]) == 1)
        #expect(m.value("thumbd_http_requests_total", ["route": "img", "status": "400"]) == 1)
        #expect(m.value("thumbd_http_requests_total", ["route": "health", "status": "200"]) == 1)
        #expect(m.types["thumbd_http_requests_total"] == "counter")
        #expect(m.value("thumbd_http_request_duration_seconds_count", ["route": "img"]) == 5)
        #expect(m.types["thumbd_http_request_duration_seconds"] == "histogram")
        #expect(m.value("thumbd_http_response_bytes_total", ["route": "img"]).map { $0 > Double(photo.count) } == true)
        #expect(m.value("thumbd_transforms_total", ["format": "jpeg", "result": "ok"]) == 1)
        #expect(m.value("thumbd_transform_duration_seconds_count", ["format": "jpeg"]) == 1)
        #expect(m.value("thumbd_cache_requests_total", ["tier": "memory", "result": "hit"]) == 1)
        #expect(m.value("thumbd_cache_requests_total", ["tier": "memory", "result": "miss"]) == 1)
        #expect(m.value("thumbd_cache_requests_total", ["tier": "disk", "result": "miss"]) == 1)
        #expect(m.value("thumbd_cache_writes_total", ["tier": "disk"]) == 1)
        #expect(m.value("thumbd_cache_entries", ["tier": "memory"]) == 1)
        #expect(m.value("thumbd_cache_bytes", ["tier": "memory"]).map { $0 > 0 } == true)
        #expect(m.value("thumbd_transform_queue_depth") == 0)
        #expect(m.value("thumbd_transforms_running") == 0)
        #expect(m.value("thumbd_coalesced_requests_total") == 0)
        #expect(m.value("thumbd_transform_memory_reserved_bytes") == 0)
        #expect(m.value("thumbd_transforms_waiting_for_memory") == 0)
        #expect(m.value("thumbd_transform_memory_waits_total") == 0)
        #expect(m.value("thumbd_http_open_connections") == 1)  // the scrape's own
        #expect(m.value("thumbd_http_requests_in_flight") == 1)

        // Counters only grow: a second scrape adds the first one.
        let again = try PrometheusText(get("/metrics").text)
        #expect(again.value("thumbd_http_requests_total", ["route": "metrics", "status": "200"]) == 1)
        #expect(again.value("thumbd_cache_requests_total", ["tier": "memory", "result": "hit"]) == 1)
    }

    @Test func routesAreMatchedFromThePathAlone() {
        #expect(Route(path: "/img/a/b.jpg") == .image)
        #expect(Route(path: "/img/") == .image)
        #expect(Route(path: "/img") == .notFound)
        #expect(Route(path: "/proxy") == .proxy)
        #expect(Route(path: "/proxyx") == .notFound)
        #expect(Route(path: "/v1/images") == .listing)
        #expect(Route(path: "/v1/images/") == .notFound)
        #expect(Route(path: "/") == .gallery)
        #expect(Route(path: "/health") == .health)
        #expect(Route(path: "/healthz") == .notFound)
        #expect(Route(path: "/metrics") == .metrics)
        #expect(Route(path: "/whatever/else") == .notFound)
        #expect(Route(path: "*") == .server)
        // Labels are a fixed set, one per route, never the path.
        #expect(Set(Route.allCases.map(\.label)).count == Route.allCases.count)
        #expect(Route(tag: -1) == nil)
        for route in Route.allCases { #expect(Route(tag: route.rawValue) == route) }
    }

    /// The route a request was served by and the route it is counted under are one value:
    /// a gallery page with a query is the gallery, a near-miss of a route is not found.
    @Test func requestsAreCountedUnderTheRouteThatServedThem() throws {
        let f = try LibraryFixture()
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        #expect(try get("/?page=2").status == 200)
        #expect(try get("/proxyx").status == 404)
        #expect(try get("/metricsx?y=1").status == 404)
        for _ in 0..<400 where f.service.server.openConnections > 0 { Thread.sleep(forTimeInterval: 0.005) }
        let m = try PrometheusText(get("/metrics").text)
        #expect(m.value("thumbd_http_requests_total", ["route": "gallery", "status": "200"]) == 1)
        #expect(m.value("thumbd_http_requests_total", ["route": "not_found", "status": "404"]) == 2)
        #expect(m.value("thumbd_http_requests_total", ["route": "proxy", "status": "404"]) == nil)
        #expect(m.value("thumbd_http_requests_total", ["route": "metrics", "status": "404"]) == nil)
    }
}
