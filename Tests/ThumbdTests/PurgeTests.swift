import Dispatch
import Foundation
import HTTP
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct PurgeTests {
    static let token = "purge-test-token-0123456789"
    static let photo = try! ImageSynthesis.pattern(width: 500, height: 400, seed: 8).encode(.jpeg)
    static let other = try! ImageSynthesis.pattern(width: 500, height: 400, seed: 9).encode(.jpeg)

    func purge(_ port: Int, _ query: String, token: String? = PurgeTests.token) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: port).request("POST", "/v1/purge?\(query)", headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    @Test func withoutATokenTheEndpointDoesNotExist() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo])
        #expect(try purge(f.port, "path=a.jpg").status == 404)
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/purge?path=a.jpg").status == 404)
    }

    @Test func aMissingOrWrongTokenIs401() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo]) { $0.admin.token = Self.token }
        for token in [nil, "wrong-token-0123456789abcd", Self.token + "x", String(Self.token.dropLast())] {
            let refused = try purge(f.port, "path=a.jpg", token: token)
            #expect(refused.status == 401 && refused.header("WWW-Authenticate") == "Bearer realm=\"thumbd\"", "\(token ?? "none")")
        }
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/purge?path=a.jpg").status == 405)
        #expect(try purge(f.port, "").status == 400)
        #expect(try purge(f.port, "path=a.jpg&url=http://x/a.jpg").status == 400)
    }

    @Test func aPurgeRemovesEveryVariantOfOneSourceFromBothTiersAndNoOther() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo, "a.jpg|x.jpg": Self.other, "b.jpg": Self.other]) { $0.admin.token = Self.token }
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        for w in [50, 60, 70] { #expect(try get("/img/a.jpg?w=\(w)").status == 200) }
        #expect(try get("/img/a.jpg%7Cx.jpg?w=50").status == 200)
        #expect(try get("/img/b.jpg?w=50").status == 200)
        let answer = try purge(f.port, "path=a.jpg")
        #expect(answer.status == 200)
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Int])
        #expect(removed["removed"] == 6, "three variants, each in memory and on disk")
        #expect(try get("/img/a.jpg?w=50").header("X-Cache") == "miss")
        #expect(try get("/img/a.jpg%7Cx.jpg?w=50").header("X-Cache") == "memory", "a path that merely starts like it is another source")
        #expect(try get("/img/b.jpg?w=50").header("X-Cache") == "memory")
    }

    /// `folder=`: every image under the folder, at any depth, and nothing beside it (not a
    /// folder whose name merely starts the same, nor a file named like it).
    @Test func aFolderPurgeRemovesEveryImageUnderItAndNoOther() throws {
        let f = try LibraryFixture(files: ["trips/a.jpg": Self.photo, "trips/2024/b.jpg": Self.other, "tripsx/c.jpg": Self.photo,
                                           "trips.jpg": Self.other]) { $0.admin.token = Self.token }
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        let targets = ["/img/trips/a.jpg?w=50", "/img/trips/2024/b.jpg?w=50", "/img/tripsx/c.jpg?w=50", "/img/trips.jpg?w=50"]
        for target in targets { #expect(try get(target).status == 200) }
        let answer = try purge(f.port, "folder=trips/")
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Int])
        #expect(answer.status == 200 && removed["removed"] == 4, "two variants, each in memory and on disk: \(answer.text)")
        #expect(try targets.map { try get($0).header("X-Cache") } == ["miss", "miss", "memory", "memory"])
        #expect(try purge(f.port, "folder=trips&path=trips/a.jpg").status == 400)
        #expect(try purge(f.port, "folder=../etc").status == 404)
    }

    @Test func aPurgeRacingFiftyReadersServesOnlyWholeVariants() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.photo]) { $0.admin.token = Self.token }
        let port = f.port
        let reference = try RawHTTPClient(port: port).request("GET", "/img/a.jpg?w=120").body
        let bad = Atomic<Int>(0), served = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<50 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? RawHTTPClient(port: port, timeout: 30) else { return }
                while !stop.load(ordering: .relaxed) {
                    guard let response = try? client.request("GET", "/img/a.jpg?w=120") else { bad.add(1, ordering: .relaxed); return }
                    if response.status != 200 || response.body != reference { bad.add(1, ordering: .relaxed) }
                    served.add(1, ordering: .relaxed)
                }
            }.start()
        }
        #expect(eventually { served.load(ordering: .relaxed) >= 200 })
        for _ in 0..<3 { #expect(try purge(port, "path=a.jpg").status == 200) }
        #expect(eventually { served.load(ordering: .relaxed) >= 600 })
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(bad.load(ordering: .relaxed) == 0)
    }

    @Test func aRemotePurgeForgetsTheOriginalToo() throws {
        let origin = try TestOrigin()
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
            config.admin.token = Self.token
        }
        let url = "http://127.0.0.1:\(origin.port)/photo.jpg"
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?url=\(encoded)&w=60").status == 200)
        #expect(origin.count("/photo.jpg") == 1)
        let answer = try purge(f.port, "url=\(encoded)")
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Int])
        #expect(removed["removed"] == 4, "the variant and the original, each in both tiers")
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?url=\(encoded)&w=60").header("X-Cache") == "miss")
        #expect(origin.count("/photo.jpg") == 2, "fetched again")
    }
}
