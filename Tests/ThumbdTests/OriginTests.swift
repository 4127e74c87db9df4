import Clocks
import Dispatch
import Foundation
import HTTP
import HTTPServer
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import WireCoding

/// An origin for the proxy tests: thumbd's own HTTP server with a few behaviours.
final class TestOrigin: HTTPHandler, @unchecked Sendable {
    let photo: [UInt8] = try! ImageSynthesis.pattern(width: 800, height: 600, seed: 3).encode(.jpeg)
    let requests = Mutex<[String]>([])
    let conditional = Counter()
    var server: HTTPServer!
    var port: Int { server.port }

    init() throws {
        server = try HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1), handler: self)
    }

    func count(_ path: String) -> Int { requests.withLock { $0.filter { $0 == path }.count } }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let path = String(request.path)
        requests.withLock { $0.append(path) }
        switch path {
        case "/photo.jpg":
            if request.headers["If-None-Match"] != nil { conditional.increment() }
            let rep = Representation(contentType: "image/jpeg", body: .bytes(photo), etag: EntityTag("v1"),
                                     lastModified: Timestamp(seconds: 1_700_000_000))
            responder.respond(rep.response(to: request))
        case "/face.png":
            let face = (try? FacePhotos.bytes("astronaut.png")) ?? []
            responder.respond(Representation(contentType: "image/png", body: .bytes(face), etag: EntityTag("f1")).response(to: request))
        case "/undated.jpg":
            responder.respond(HTTPResponse(headers: HTTPHeaders([("Content-Type", "image/jpeg")]), body: .bytes(photo)))
        case "/slow.jpg":
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) { [photo] in
                responder.respond(HTTPResponse(headers: HTTPHeaders([("Content-Type", "image/jpeg")]), body: .bytes(photo)))
            }
        case "/missing.jpg":
            responder.respond(ProblemDetails(.notFound, detail: "no").response)
        case "/error.jpg":
            responder.respond(ProblemDetails(.internalServerError, detail: "boom").response)
        case "/text":
            responder.respond(HTTPResponse(contentType: "text/plain", body: "not an image"))
        case "/redirect-home":
            var response = HTTPResponse(status: HTTPStatus(302))
            response.headers.add("Location", "/photo.jpg")
            responder.respond(response)
        case "/redirect-away":
            var response = HTTPResponse(status: HTTPStatus(302))
            response.headers.add("Location", "http://elsewhere.invalid/photo.jpg")
            responder.respond(response)
        default:
            responder.respond(ProblemDetails(.notFound, detail: "no").response)
        }
    }
}


@Suite struct OriginTests {
    func fixture(clock: any MonotonicClock = SystemClock(), _ configure: (inout ThumbdConfig) -> Void = { _ in }) throws
        -> LibraryFixture {
        try LibraryFixture(clock: clock) { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
            config.origins.timeout = 1.5
            configure(&config)
        }
    }

    func proxy(_ f: LibraryFixture, _ url: String, _ params: String = "") throws -> RawHTTPClient.Response {
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try RawHTTPClient(port: f.port, timeout: 30).request("GET", "/proxy?url=\(encoded)\(params)")
    }

    @Test func fetchesResizesAndServesWithHeaders() throws {
        let origin = try TestOrigin()
        let f = try fixture()
        let response = try proxy(f, "http://127.0.0.1:\(origin.port)/photo.jpg", "&w=200")
        #expect(response.status == 200, "\(response.text)")
        let header = try ImageHeader.read(response.body)
        #expect(header.width == 200 && header.height == 150)
        #expect(response.header("ETag") != nil && response.header("Cache-Control") == "public, max-age=86400")
        #expect(response.header("Server-Timing")?.contains("fetch;dur=") == true)
        #expect(response.header("Last-Modified") == HTTPDate.format(1_700_000_000))  // the origin's
        // Proxied transforms are counted like library ones.
        let metrics = try PrometheusText(RawHTTPClient(port: f.port).request("GET", "/metrics").text)
        #expect(metrics.value("thumbd_transforms_total", ["format": "jpeg", "result": "ok"]) == 1)
        #expect(metrics.value("thumbd_origin_fetches_total", ["result": "ok"]) == 1)
        // The original as it is: from the tier the transform's fetch left it in, and it says so.
        let original = try proxy(f, "http://127.0.0.1:\(origin.port)/photo.jpg")
        #expect(original.status == 200 && original.body == origin.photo)
        #expect(original.header("X-Cache") == "memory" && original.header("Server-Timing")?.contains("original;") == true)
        #expect(origin.count("/photo.jpg") == 1)
        let fetched = try proxy(f, "http://127.0.0.1:\(origin.port)/undated.jpg")
        #expect(fetched.header("X-Cache") == "miss" && fetched.header("Server-Timing")?.contains("fetch;dur=") == true, "\(fetched.status)")
        // An origin that sends no Last-Modified gets none passed on (rather than 1970).
        let undated = try proxy(f, "http://127.0.0.1:\(origin.port)/undated.jpg", "&w=60")
        #expect(undated.status == 200 && undated.header("Last-Modified") == nil)
        #expect(undated.header("ETag") != nil)  // the version falls back to a checksum of the bytes
    }

    @Test func fiveSizesOfOneOriginalMakeOneFetch() throws {
        let origin = try TestOrigin()
        let f = try fixture()
        let port = f.port, url = "http://127.0.0.1:\(origin.port)/photo.jpg"
        let statuses = concurrently(5) { i in
            (try? RawHTTPClient(port: port, timeout: 30).request("GET",
                "/proxy?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&w=\(100 + 50 * i)").status) ?? 0
        }
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(origin.count("/photo.jpg") == 1)
        #expect(try proxy(f, url, "&w=100").header("X-Cache") == "memory")
        #expect(origin.count("/photo.jpg") == 1)
    }

    @Test func afterTheTTLTheOriginalIsRevalidated() throws {
        let origin = try TestOrigin()
        let clock = ManualClock()
        let f = try fixture(clock: clock) { $0.origins.ttl = 0.5 }
        let url = "http://127.0.0.1:\(origin.port)/photo.jpg"
        #expect(try proxy(f, url, "&w=120").status == 200)
        clock.advance(by: 0.6)
        let again = try proxy(f, url, "&w=130")
        #expect(again.status == 200)
        #expect(origin.count("/photo.jpg") == 2)
        #expect(origin.conditional.count == 1)  // If-None-Match: "v1", answered 304
        // The same thumbnail as before the revalidation: the version did not change.
        #expect(try proxy(f, url, "&w=120").header("X-Cache") == "memory")
    }

    /// An origin that answers 30 s late is a failing one: the misses of its URLs wait
    /// for one timeout at most, and a thumbnail held of it is answered at once.
    @Test func aStalledOriginAnswersEveryMissWithinItsTimeoutAndHeldThumbnailsAtOnce() throws {
        let origin = try TestOrigin()
        let stall = try FaultProxy(to: origin.port)
        let timeout = 2.0
        let f = try fixture { config in
            config.origins.ttl = 0  // every request asks the origin again
            config.origins.timeout = timeout
        }
        let base = "http://127.0.0.1:\(stall.port)/photo.jpg"
        let held = try proxy(f, base + "?v=held", "&w=100")
        #expect(held.status == 200)
        stall.rules = [.init(.delay(seconds: 30))]
        let answers = concurrently(11) { i -> (status: Int, retryAfter: String?, seconds: Double) in
            if i == 10 { usleep(200_000) }
            let started = Date()
            let response = try? self.proxy(f, base + (i == 10 ? "?v=held" : "?v=\(i)"), i == 10 ? "&w=100" : "&w=60")
            return (response?.status ?? 0, response?.header("Retry-After"), Date().timeIntervalSince(started))
        }
        for (i, miss) in answers.prefix(10).enumerated() {
            // The first ones wait out the timeout (504); the rest find the origin paused (503).
            #expect(miss.status == 504 || (miss.status == 503 && miss.retryAfter == "1"), "v=\(i): \(miss.status)")
            #expect(miss.seconds <= timeout + 1, "v=\(i) answered after \(miss.seconds) s")
        }
        #expect(answers[10].status == 200 && answers[10].seconds <= 1, "held: \(answers[10].status) after \(answers[10].seconds) s")
        stall.stop()
    }

    @Test func aStaleCopyIsServedWhenTheOriginIsDown() throws {
        var origin: TestOrigin? = try TestOrigin()
        let clock = ManualClock()
        let f = try fixture(clock: clock) { $0.origins.ttl = 0.3 }
        let url = "http://127.0.0.1:\(origin!.port)/photo.jpg"
        #expect(try proxy(f, url, "&w=90").status == 200)
        origin!.server.stop()
        origin = nil
        clock.advance(by: 0.5)
        let stale = try proxy(f, url, "&w=95")
        #expect(stale.status == 200, "\(stale.text)")
        #expect(f.service.app.originals?.staleServed.count == 1)
    }

    @Test(arguments: [("/missing.jpg", 404), ("/error.jpg", 502), ("/text", 502), ("/slow.jpg", 504),
                      ("/redirect-away", 403), ("/redirect-home", 200)])
    func originProblemsMapToStatuses(_ path: String, _ status: Int) throws {
        let origin = try TestOrigin()
        let f = try fixture()
        let start = Date()
        let response = try proxy(f, "http://127.0.0.1:\(origin.port)\(path)", "&w=50")
        #expect(response.status == status, "\(path): \(response.text)")
        if status != 200 { #expect(response.header("Content-Type") == "application/problem+json") }
        if path == "/slow.jpg" { #expect(Date().timeIntervalSince(start) < 3, "answered by the timeout, not the origin") }
    }

    @Test func aBodyOverTheLimitIsCutOffWhileItStreams() throws {
        let listener = try RawListener(streamBody: true)
        let f = try fixture { $0.limits.maxSourceBytes = 1 << 20 }
        let response = try proxy(f, "http://127.0.0.1:\(listener.port)/endless.jpg", "&w=50")
        #expect(response.status == 413)
        // The count is final once the origin's sender saw the connection go.
        #expect(listener.streamEnded.wait(timeout: .now() + 30) == .success)
        let sent = listener.bytesSent.withLock { $0 }
        #expect(sent < 16 << 20, "the origin got \(sent) bytes out: the fetch must stop near the 1 MiB limit")
    }

    /// A host with a trailing dot is the same host: `127.0.0.1.` is fetched from the address
    /// itself, without asking DNS (which knows no such name), like `127.0.0.1`.
    @Test func aTrailingDotIsTheSameHost() throws {
        let origin = try TestOrigin()
        let f = try fixture()
        #expect(try proxy(f, "http://127.0.0.1.:\(origin.port)/photo.jpg", "&w=40").status == 200)
        #expect(OriginFetcher.withoutTrailingDots("http://localhost..:8080/a.jpg?x=1") == "http://localhost:8080/a.jpg?x=1")
        #expect(OriginFetcher.withoutTrailingDots("https://example.com/a.") == "https://example.com/a.")
    }

    @Test func badRequestsAndDisallowedOrigins() throws {
        let f = try fixture()
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?w=10").status == 400)
        #expect(try proxy(f, "ftp://127.0.0.1/x.jpg").status == 400)
        #expect(try proxy(f, "file:///etc/passwd").status == 400)
        #expect(try proxy(f, "http://example.com/a.jpg").status == 403)
        let off = try LibraryFixture()
        #expect(try proxy(off, "http://127.0.0.1/a.jpg").status == 403)
    }

    /// SSRF: with private addresses refused, every spelling of loopback is refused at
    /// connect time, and the listener on 127.0.0.1 sees no connection at all.
    @Test func loopbackInAnySpellingIsRefusedAtConnectTime() throws {
        let listener = try RawListener(streamBody: false)
        let f = try LibraryFixture { config in
            config.origins.allow = ["*"]
            config.origins.allowPrivate = false
        }
        let p = listener.port
        for url in ["http://localhost:\(p)/a.jpg", "http://127.0.0.1:\(p)/a.jpg", "http://127.0.0.2:\(p)/a.jpg",
                    "http://[::1]:\(p)/a.jpg", "http://0.0.0.0:\(p)/a.jpg", "http://[::ffff:127.0.0.1]:\(p)/a.jpg",
                    "http://2130706433:\(p)/a.jpg", "http://0177.0.0.1:\(p)/a.jpg", "http://0x7f.1:\(p)/a.jpg",
                    "http://127.0.0.1.:\(p)/a.jpg", "http://localhost.:\(p)/a.jpg", "http://localhost..:\(p)/a.jpg"] {
            let response = try proxy(f, url, "&w=10")
            #expect(response.status == 403, "\(url): \(response.status) \(response.text)")
        }
        // One connection of our own, after all of them: the listener accepts in order, so once
        // it has counted this one it has counted any the proxy made before.
        let own = try RawHTTPClient(port: p)
        #expect(eventually(timeout: 30) { listener.accepted >= 1 })
        withExtendedLifetime(own) {}
        #expect(listener.accepted == 1)
    }
}

@Suite struct AddressPolicyTests {
    func v4(_ s: String) -> AddressPolicy.Verdict {
        AddressPolicy.classify(ipv4: s.split(separator: ".").map { UInt8($0)! })
    }

    func v6(_ s: String) -> AddressPolicy.Verdict {
        var addr = in6_addr()
        #expect(inet_pton(AF_INET6, s, &addr) == 1)
        return AddressPolicy.classify(ipv6: withUnsafeBytes(of: addr) { Array($0) })
    }

    @Test(arguments: ["0.0.0.0", "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                      "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.1", "239.1.1.1", "255.255.255.255",
                      "192.0.2.1", "198.18.0.1", "240.0.0.1"])
    func refusesPrivateAndSpecialIPv4(_ address: String) {
        #expect(v4(address) != .allowed, "\(address)")
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "193.0.0.1"])
    func allowsPublicIPv4(_ address: String) {
        #expect(v4(address) == .allowed, "\(address)")
    }

    @Test(arguments: ["::", "::1", "::ffff:127.0.0.1", "::ffff:8.8.8.8", "fc00::1", "fd00:ec2::254", "fe80::1", "ff02::1",
                      "2001:db8::1", "64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1", "::127.0.0.1"])
    func refusesPrivateAndSpecialIPv6(_ address: String) {
        #expect(v6(address) != .allowed, "\(address)")
    }

    @Test(arguments: ["2606:4700::1111", "2a00:1450:4001::200e", "64:ff9b::808:808"])
    func allowsPublicIPv6(_ address: String) {
        #expect(v6(address) == .allowed, "\(address)")
    }

    @Test func allowListPatterns() {
        let allow = OriginAllowList(["images.example.com", "*.cdn.example.org", "EXAMPLE.net."])
        #expect(allow.allows(host: "images.example.com") && allow.allows(host: "IMAGES.example.com."))
        #expect(allow.allows(host: "a.cdn.example.org") && allow.allows(host: "a.b.cdn.example.org"))
        #expect(!allow.allows(host: "cdn.example.org") && !allow.allows(host: "evilcdn.example.org"))
        #expect(allow.allows(host: "example.net") && !allow.allows(host: "www.example.net"))
        #expect(!allow.allows(host: "images.example.com.evil.com"))
        #expect(OriginAllowList(["*"]).allows(host: "anything.test"))
        #expect(OriginAllowList([]).isEmpty && !OriginAllowList([]).allows(host: "x"))
    }
}
