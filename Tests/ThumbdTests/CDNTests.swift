import Foundation
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// The tags answers are filed under at a CDN: short, stable, one per source and per folder.
@Suite struct SurrogateKeysTests {
    @Test func aLibrarySourceIsTaggedWithItselfAndEveryFolderAboveIt() {
        let tags = SurrogateKeys.tags(of: .library("trips/2024/beach.jpg"))
        #expect(tags == [SurrogateKeys.folderTag("img|"), SurrogateKeys.folderTag("img|trips/"),
                         SurrogateKeys.folderTag("img|trips/2024/"), SurrogateKeys.sourceTag(.library("trips/2024/beach.jpg"))])
        #expect(Set(tags).count == 4)
        // The same on every replica and after every restart: a literal.
        #expect(SurrogateKeys.sourceTag(.library("a.jpg")) == "s7070569501de4ad6")
        // A bucket's object: its bucket and folders above it.
        #expect(SurrogateKeys.folders(of: .s3(bucket: "photos", key: "lib/a/b.jpg")) == ["s3|", "s3|photos/", "s3|photos/lib/", "s3|photos/lib/a/"])
    }

    @Test func aRemoteOriginalHasItsOwnTagAndNeverItsURL() {
        let url = "https://origin.example/private/a.jpg?token=secret123"
        let tags = SurrogateKeys.tags(of: .remote(url))
        #expect(tags == [SurrogateKeys.sourceTag(.remote(url))])
        for tag in tags + SurrogateKeys.tags(of: .library("secret/folder/x.jpg")) {
            #expect(tag.count == 17 && (tag.first == "s" || tag.first == "f"), "\(tag)")
            #expect(tag.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(tag)")
            #expect(!tag.contains("secret") && !tag.contains("token"))
        }
    }
}

/// The three CDNs' purge requests, sent to a recording server of the tests' own (Fastly's and
/// Cloudflare's APIs are not called by any test: their shapes follow their documentation).
@Suite struct CDNPurgeRequestTests {
    static func purge(_ kind: CDNKind, _ server: RecordingServer, tags: [String], attempts: Int = 3) -> CDNPurgeOutcome {
        CDNPurge(kind: kind, endpoint: server.url, service: "SERVICE1", token: "token-abc", attempts: attempts, timeoutSeconds: 5,
                 send: CDNPurgeTransport.send).purge(tags: tags)
    }

    static func json(_ body: [UInt8]) -> [String: [String]] {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: [String]]) ?? [:]
    }

    @Test func varnishIsSentPURGEWithTheTagsInXkeyPurge() throws {
        let server = try RecordingServer()
        #expect(Self.purge(.varnish, server, tags: ["sabc", "fdef"]).purged)
        let sent = try #require(server.requests.withLock { $0.first })
        #expect(sent.method == "PURGE" && sent.target == "/" && sent.fields["xkey-purge"] == "sabc fdef")
    }

    @Test func fastlyIsSentItsBatchPurgeBySurrogateKeys() throws {
        let server = try RecordingServer()
        #expect(Self.purge(.fastly, server, tags: ["sabc"]).purged)
        let sent = try #require(server.requests.withLock { $0.first })
        #expect(sent.method == "POST" && sent.target == "/service/SERVICE1/purge")
        #expect(sent.fields["fastly-key"] == "token-abc" && sent.fields["content-type"] == "application/json")
        #expect(Self.json(sent.body) == ["surrogate_keys": ["sabc"]])
    }

    @Test func cloudflareIsSentPurgeCacheByTagsThirtyAtATime() throws {
        let server = try RecordingServer()
        let tags = (0..<45).map { "s\($0)" }
        let outcome = Self.purge(.cloudflare, server, tags: tags)
        #expect(outcome.purged && outcome.requests == 2)
        let sent = server.requests.withLock { $0 }
        #expect(sent.map(\.target) == ["/zones/SERVICE1/purge_cache", "/zones/SERVICE1/purge_cache"])
        #expect(sent.allSatisfy { $0.method == "POST" && $0.fields["authorization"] == "Bearer token-abc" })
        #expect(sent.map { Self.json($0.body)["tags"] ?? [] } == [Array(tags[0..<30]), Array(tags[30...])])
    }

    /// 5xx and 429 are tried again, up to the attempts; a refusal is not; nobody answering fails.
    @Test func failuresAreRetriedWithinTheirBoundsAndReported() throws {
        let flaky = try RecordingServer(statuses: [503, 429, 200])
        let recovered = Self.purge(.varnish, flaky, tags: ["s1"])
        #expect(recovered.purged && recovered.requests == 3)
        let down = try RecordingServer(statuses: [503])
        let failed = Self.purge(.varnish, down, tags: ["s1"], attempts: 2)
        #expect(failed.failure == .status(503) && failed.requests == 2)
        let refusing = try RecordingServer(statuses: [403])
        let refused = Self.purge(.fastly, refusing, tags: ["s1"])
        #expect(refused.failure == .status(403) && refused.requests == 1, "a wrong token is not tried again")
        let closedPort = try #require(freeConsecutivePorts(1))
        let nobody = CDNPurge(kind: .varnish, endpoint: "http://127.0.0.1:\(closedPort)", service: "", token: "", attempts: 2,
                              timeoutSeconds: 5, send: CDNPurgeTransport.send).purge(tags: ["s1"])
        #expect(!nobody.purged && nobody.requests == 2)
        if case .unreachable = nobody.failure {} else { Issue.record("\(String(describing: nobody.failure))") }
    }
}

/// thumbd with a CDN in front (a recording server standing in for its API): every cacheable
/// answer tagged, and a purge that asks the CDN last and succeeds whatever the CDN says.
@Suite struct CDNTaggingTests {
    static let token = "cdn-test-admin-token-0123"

    static func fixture(_ kind: CDNKind, purgeURL: String) throws -> LibraryFixture {
        let photo = try ImageSynthesis.pattern(width: 320, height: 240, seed: 7).encode(.jpeg)
        return try LibraryFixture(files: ["trips/beach.jpg": photo, "other.jpg": photo]) { config in
            config.cdn.kind = kind
            config.cdn.purgeURL = purgeURL
            config.cdn.service = "SERVICE1"
            config.cdn.token = "api-token"
            config.cdn.purgeAttempts = 2
            config.admin.token = token
        }
    }

    @Test func everyCacheableAnswerNamesItsSourceAndFolders() throws {
        let server = try RecordingServer()
        let f = try Self.fixture(.fastly, purgeURL: server.url)
        let client = try RawHTTPClient(port: f.port)
        let expected = SurrogateKeys.tags(of: .library("trips/beach.jpg")).joined(separator: " ")
        for target in ["/img/trips/beach.jpg?w=100", "/img/trips/beach.jpg?w=100", "/img/trips/beach.jpg", "/v1/images/trips/beach.jpg"] {
            let answer = try client.request("GET", target)
            #expect(answer.status == 200 && answer.header("Surrogate-Key") == expected, "\(target): \(answer.header("Surrogate-Key") ?? "none")")
        }
        #expect(try client.request("GET", "/health").header("Surrogate-Key") == nil)
        // A problem is never stored by a CDN: no tags.
        let missing = try client.request("GET", "/img/trips/none.jpg?w=100")
        #expect(missing.status == 404 && missing.header("Surrogate-Key") == nil)
        // Cloudflare's form: commas.
        let cloudflare = try Self.fixture(.cloudflare, purgeURL: server.url)
        #expect(try RawHTTPClient(port: cloudflare.port).request("GET", "/img/other.jpg?w=50").header("Cache-Tag")
                == SurrogateKeys.tags(of: .library("other.jpg")).joined(separator: ","))
    }

    /// The CDN's settings are checked at start: what its purge needs, naming the key.
    @Test func aCDNWithoutWhatItsPurgeNeedsStopsTheStart() throws {
        for (settings, key) in [(["THUMBD_CDN_KIND": "varnish"], "cdn.purge_url"), (["THUMBD_CDN_KIND": "fastly", "THUMBD_CDN_TOKEN": "t"], "cdn.service"),
                                (["THUMBD_CDN_KIND": "cloudflare", "THUMBD_CDN_SERVICE": "zone1"], "cdn.service")] {
            do {
                _ = try ConfigLoader.load(file: nil, environment: settings)
                Issue.record("\(settings) was accepted")
            } catch {
                #expect(error.key == key, "\(settings): \(error)")
            }
        }
        let loaded = try ConfigLoader.load(file: nil, environment: ["THUMBD_CDN_KIND": "varnish", "THUMBD_CDN_PURGE_URL": "http://127.0.0.1:1"])
        #expect(loaded.warnings.contains { $0.contains("admin.token is empty") })
        #expect(throws: ConfigError.self) { try ConfigLoader.load(file: nil, environment: ["THUMBD_CDN_SERVICE": "a/../b"]) }
    }

    /// The shared caches' directives, added to `output.cache_control` when set.
    @Test func sharedCachesGetTheirOwnDirectives() throws {
        let photo = try ImageSynthesis.pattern(width: 320, height: 240, seed: 7).encode(.jpeg)
        let f = try LibraryFixture(files: ["a.jpg": photo]) { config in
            config.output.sMaxAge = 604_800
            config.output.staleWhileRevalidate = 60
            config.output.staleIfError = 86_400
        }
        let client = try RawHTTPClient(port: f.port)
        for target in ["/img/a.jpg?w=80", "/img/a.jpg"] {
            #expect(try client.request("GET", target).header("Cache-Control")
                    == "public, max-age=86400, s-maxage=604800, stale-while-revalidate=60, stale-if-error=86400", "\(target)")
        }
        var output = ThumbdConfig.Output()
        output.cacheControl = "public, max-age=60, s-maxage=120"
        output.sMaxAge = 600
        #expect(output.imageCacheControl == "public, max-age=60, s-maxage=120", "cache_control's own directive wins")
        let plain = try LibraryFixture(files: ["a.jpg": photo])
        #expect(try RawHTTPClient(port: plain.port).request("GET", "/img/a.jpg?w=80").header("Cache-Control") == "public, max-age=86400",
                "none by default")
    }

    @Test func aPurgeAsksTheCDNLastAndStandsWhenTheCDNFails() throws {
        let server = try RecordingServer()
        let f = try Self.fixture(.fastly, purgeURL: server.url)
        let client = try RawHTTPClient(port: f.port)
        #expect(try client.request("GET", "/img/trips/beach.jpg?w=100").status == 200)
        let purge = try client.request("POST", "/v1/purge?path=trips/beach.jpg", headers: ["Authorization: Bearer \(Self.token)"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(purge.body)) as? [String: Any])
        let cdn = try #require(answer["cdn"] as? [String: Any], "\(purge.text)")
        #expect(purge.status == 200 && (answer["removed"] as? Int ?? 0) >= 1)
        #expect(cdn["status"] as? String == "purged" && cdn["tags"] as? [String] == [SurrogateKeys.sourceTag(.library("trips/beach.jpg"))])
        #expect(server.requests.withLock { $0.count } == 1)

        // Nobody at the CDN's address: the local purge still stands, and says the CDN failed.
        let closedPort = try #require(freeConsecutivePorts(1))
        let orphan = try Self.fixture(.varnish, purgeURL: "http://127.0.0.1:\(closedPort)")
        let other = try RawHTTPClient(port: orphan.port)
        #expect(try other.request("GET", "/img/trips/beach.jpg?w=100").status == 200)
        let failed = try other.request("POST", "/v1/purge?path=trips/beach.jpg", headers: ["Authorization: Bearer \(Self.token)"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(failed.body)) as? [String: Any])
        let failedCDN = try #require(body["cdn"] as? [String: Any])
        #expect(failed.status == 200 && (body["removed"] as? Int ?? 0) >= 1)
        #expect(failedCDN["status"] as? String == "failed" && failedCDN["requests"] as? Int == 2 && failedCDN["detail"] != nil)
        #expect(try other.request("GET", "/img/trips/beach.jpg?w=100").header("X-Cache") == "miss")
        let metrics = try PrometheusText(other.request("GET", "/metrics").text)
        #expect(metrics.value("thumbd_cdn_purges_total", ["result": "failed"]) == 1)
    }
}
