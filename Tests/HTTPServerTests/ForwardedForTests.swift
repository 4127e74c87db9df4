import HTTP
@testable import HTTPServer
import Testing
import TestSupport

@Suite struct ForwardedForTests {
    @Test func prefixesMatchWhatTheyCover() throws {
        let net = try #require(IPPrefix("10.0.0.0/8"))
        #expect(net.contains(try #require(IPPrefix.addressBytes("10.200.1.2"))))
        #expect(!net.contains(try #require(IPPrefix.addressBytes("11.0.0.1"))))
        #expect(net.contains(try #require(IPPrefix.addressBytes("::ffff:10.1.2.3"))), "IPv4-mapped is the IPv4 address")
        let one = try #require(IPPrefix("::1"))
        let loopback = try #require(IPPrefix.addressBytes("::1")), other = try #require(IPPrefix.addressBytes("::2"))
        #expect(one.contains(loopback) && !one.contains(other))
        #expect(IPPrefix("fd00::/8")?.contains(IPPrefix.addressBytes("fd12::1")!) == true)
        for bad in ["", "10.0.0.0/33", "::/129", "host.example", "10.0.0.1/x", "1.2.3.4/-1"] { #expect(IPPrefix(bad) == nil, "\(bad)") }
    }

    @Test func theClientIsTheRightmostAddressNotATrustedProxy() {
        let trusted = [IPPrefix("127.0.0.1")!, IPPrefix("10.0.0.0/8")!]
        #expect(ForwardedFor.client(["203.0.113.7"], trusted: trusted) == "203.0.113.7")
        // What a client wrote itself, left of the address our proxy appended, is not believed.
        #expect(ForwardedFor.client(["1.2.3.4, 203.0.113.7"], trusted: trusted) == "203.0.113.7")
        #expect(ForwardedFor.client(["203.0.113.7, 10.1.1.1", "127.0.0.1"], trusted: trusted) == "203.0.113.7")
        #expect(ForwardedFor.client(["10.1.1.1, 127.0.0.1"], trusted: trusted) == "10.1.1.1")
        #expect(ForwardedFor.client(["garbage, 10.1.1.1"], trusted: trusted) == "10.1.1.1")
        #expect(ForwardedFor.client([], trusted: trusted) == nil)
    }

    /// Only a configured proxy's X-Forwarded-For is believed for the access log.
    @Test func observersSeeTheForwardedClientOnlyBehindATrustedProxy() throws {
        for (trusted, expected) in [([IPPrefix("127.0.0.1")!], "198.51.100.9"), ([IPPrefix("10.0.0.0/8")!], "127.0.0.1"), ([], "127.0.0.1")] {
            let observer = RecordingObserver()
            let server = try HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1, trustedProxies: trusted),
                                        handler: TestHandler(), observer: observer)
            defer { server.stop() }
            _ = try RawHTTPClient(port: server.port).request("GET", "/hello", headers: ["X-Forwarded-For: 6.6.6.6, 198.51.100.9"])
            #expect(observer.seen.withLock { $0.map(\.client) } == [expected])
        }
    }
}
