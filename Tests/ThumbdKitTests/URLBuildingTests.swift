import Foundation
import HTTP
import PropertyBased
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
@testable import ThumbdKit
import ThumbdProtocol

@Suite struct URLBuildingTests {
    static let photo: [UInt8] = try! TestImages.photo(width: 600, height: 400, seed: 3)
    static let base = URL(string: "http://thumbs.example")!

    @Test func versionIsSet() {
        #expect(!ThumbdKit.version.isEmpty)
    }

    @Test func equivalentOptionsRenderOneURL() {
        let builder = ThumbdURLBuilder(baseURL: Self.base)
        func target(_ options: ThumbnailOptions) -> String { builder.target(forImage: "a.jpg", options: options) }
        // dpr folded into w and h, as the server rounds it.
        #expect(target(.init(width: 100, dpr: 2)) == "/img/a.jpg?w=200")
        #expect(target(.init(width: 100, dpr: 2)) == target(.init(width: 200)))
        #expect(target(.init(width: 101, height: 33, dpr: 1.5)) == "/img/a.jpg?w=152&h=50")
        // fit only with both sides, crop only with cover, q not for png, defaults dropped.
        #expect(target(.init(width: 200, fit: .cover, crop: .top)) == "/img/a.jpg?w=200")
        #expect(target(.init(width: 200, height: 100, fit: .contain, crop: .top)) == "/img/a.jpg?w=200&h=100")
        #expect(target(.init(width: 200, height: 100, fit: .cover, crop: .center)) == "/img/a.jpg?w=200&h=100&fit=cover")
        #expect(target(.init(width: 200, height: 100, fit: .cover, crop: .entropy)) == "/img/a.jpg?w=200&h=100&fit=cover&crop=entropy")
        #expect(target(.init(width: 64, enlarge: false, format: .png, quality: 40)) == "/img/a.jpg?w=64&fm=png")
        // The server's canonical order, whatever the app set first.
        #expect(target(.init(width: 300, height: 200, fit: .fill, enlarge: true, format: .webp, quality: 70))
            == "/img/a.jpg?w=300&h=200&fit=fill&enlarge=1&fm=webp&q=70")
        #expect(target(.original) == "/img/a.jpg")
        // dpr is clamped to what the server accepts.
        #expect(target(.init(width: 100, dpr: 9)) == "/img/a.jpg?w=400")
    }

    @Test func presetsComeFirstAndKeepExplicitParameters() {
        let builder = ThumbdURLBuilder(baseURL: Self.base)
        let target = builder.target(forImage: "a.jpg", options: .init(width: 100, dpr: 1.5, fit: .contain, preset: "card"))
        #expect(target == "/img/a.jpg?p=card&w=100&dpr=1.5&fit=contain")
    }

    @Test func pathsAndRemoteURLsAreEncodedLikeTheServersLinks() {
        let builder = ThumbdURLBuilder(baseURL: URL(string: "http://thumbs.example/")!)
        #expect(builder.target(forImage: "/dir/my photo+1 é.jpg") == "/img/dir/my%20photo%2B1%20%C3%A9.jpg")
        #expect(builder.imageURL("a b.jpg", options: .init(width: 10)).absoluteString == "http://thumbs.example/img/a%20b.jpg?w=10")
        #expect(builder.target(forRemote: "https://cdn.example/a b.jpg?x=1&y=2", options: .init(width: 50))
            == "/proxy?url=https%3A%2F%2Fcdn.example%2Fa%20b.jpg%3Fx%3D1%26y%3D2&w=50")
    }

    /// Any options, rendered by the kit and read back by the server's own parser (query
    /// decoding included), normalize to the request the options mean.
    @Test func theServerReadsTheKitsURLsAsTheOptionsMean() async {
        let defaults = TransformRequest.Defaults(maxDimension: 4096, quality: 75, progressive: true)
        let builder = ThumbdURLBuilder(baseURL: Self.base)
        await propertyCheck(count: 1000, input: Gen.int(in: 0...Int.max)) { seed in
            let options = ThumbnailOptions.random(seed: UInt64(seed))
            let target = builder.target(forImage: "dir/a b.jpg", options: options)
            let query = try QueryParameters(parsing: target.split(separator: "?", maxSplits: 1).dropFirst().first)
            let parser = TransformParser(presets: [:], maxDimension: defaults.maxDimension, defaultQuality: defaults.quality,
                                         defaultProgressive: defaults.progressive)
            let read = Result { () throws(ParameterError) in try parser.transform(query) }
            guard !query.isEmpty else { return }  // nothing to transform: the original
            let meant = Result { () throws(ParameterError) in try TransformRequest(options, defaults: defaults) }
            switch (read, meant) {
            case (.success(let read?), .success(let meant)):
                // Before its hints arrive, a hinted request's options are provisional: what counts is
                // what they resolve to (below).
                #expect((read.hints != nil || read.options == meant.options) && read.negotiatesFormat == meant.negotiatesFormat
                            && read.hints == meant.hints,
                        "\(target): the server read \(read.options), the options mean \(meant.options)")
                let hinted = { (request: TransformRequest) in Result { () throws(ParameterError) in
                    try request.resolved(hintedWidth: 300, hintedDPR: 2.5).0.options } }
                #expect(hinted(read) == hinted(meant))
            case (.failure, .failure):
                // Both refused (`w=1100&dpr=4` is over the limit; the kit folds it into `w=4400`,
                // so the server names `w` where the options would name `dpr`).
                break
            default:
                Issue.record("\(target): the server read \(read), the options mean \(meant)")
            }
        }
    }

    @Test func signaturesEqualTheServersSigner() {
        let keys = ["a-test-signing-key-0123456789abcdef", String(repeating: "k", count: 100), "短い鍵とUnicode-key-1234567"]
        var random = SplitMix64(seed: 7)
        for key in keys {
            let server = URLSigner(key: key)
            let client = ThumbdURLSigner(key: key)
            let builder = ThumbdURLBuilder(baseURL: Self.base, signingKey: key)
            for target in ["/img/cat.jpg?w=300", "/img/cat.jpg", "/proxy?url=https%3A%2F%2Fa.example%2Fb.png&w=10"] {
                #expect(client.sign(target) == server.sign(target))
            }
            for _ in 0..<40 {
                let path = "dir/p \(random.next() % 100).jpg"
                let options = ThumbnailOptions(width: Int(random.next() % 4000) + 1, format: .webp)
                let unsigned = ThumbdURLBuilder(baseURL: Self.base).target(forImage: path, options: options)
                #expect(builder.target(forImage: path, options: options) == server.sign(unsigned))
            }
        }
    }

    @Test func anExpiryIsCoveredByTheSignatureAndSetWithoutOneToo() throws {
        let key = "a-test-signing-key-0123456789abcdef"
        let at = Date(timeIntervalSince1970: 1_800_000_000.7)
        let signed = ThumbdURLBuilder(baseURL: Self.base, signingKey: key).target(forImage: "a.jpg", options: .init(width: 10), expiresAt: at)
        #expect(signed == URLSigner(key: key).sign("/img/a.jpg?w=10", expires: 1_800_000_000))
        try URLSigner(key: key).verify(signed)
        #expect(try URLSigner.expiry(of: signed) == 1_800_000_000)
        let unsigned = ThumbdURLBuilder(baseURL: Self.base).target(forRemote: "https://a.example/b.png", expiresAt: at)
        #expect(unsigned == "/proxy?url=https%3A%2F%2Fa.example%2Fb.png&expires=1800000000")
    }

    @Test func theServerGivesEquivalentSpellingsOneETag() throws {
        let server = try ThumbdServer(files: ["a.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let spellings = ["/img/a.jpg?w=100&dpr=2", "/img/a.jpg?w=200", "/img/a.jpg?dpr=2&w=100&crop=top",
                         "/img/a.jpg?w=200&fit=cover", "/img/a.jpg?enlarge=0&w=200&fit=contain"]
        let etags = try spellings.map { try server.get($0).header("ETag") }
        #expect(etags[0] != nil && Set(etags).count == 1)
        let options: [ThumbnailOptions] = [.init(width: 100, dpr: 2), .init(width: 200), .init(width: 100, dpr: 2, crop: .top),
                                           .init(width: 200, fit: .cover), .init(width: 200, fit: .contain, enlarge: false)]
        let targets = options.map { server.builder.target(forImage: "a.jpg", options: $0) }
        #expect(Set(targets) == ["/img/a.jpg?w=200"])
        #expect(try server.get(targets[0]).header("ETag") == etags[0])
        // Another order, q and fit spelled out: the same entry as the builder's canonical URL.
        let shuffled = try server.get("/img/a.jpg?q=70&fm=webp&fit=fill&h=100&w=150").header("ETag")
        let canonical = server.builder.target(forImage: "a.jpg", options: .init(width: 150, height: 100, fit: .fill, format: .webp, quality: 70))
        #expect(canonical == "/img/a.jpg?w=150&h=100&fit=fill&fm=webp&q=70")
        #expect(try server.get(canonical).header("ETag") == shuffled)
        // q on PNG is dropped by both.
        #expect(try server.get("/img/a.jpg?w=80&fm=png&q=30").header("ETag")
            == server.get(server.builder.target(forImage: "a.jpg", options: .init(width: 80, format: .png, quality: 30))).header("ETag"))
        // q=auto: the builder's URL and the server's default target are one entry.
        let auto = server.builder.target(forImage: "a.jpg", options: .init(width: 60, format: .webp, quality: .auto))
        #expect(auto == "/img/a.jpg?w=60&fm=webp&q=auto")
        let target = server.builder.target(forImage: "a.jpg", options: .init(width: 60, format: .webp, quality: .autoTarget(AutoQuality.defaultTarget)))
        #expect(try server.get(auto).header("ETag") == server.get(target).header("ETag"))
        #expect(try server.get(auto).header("ETag") != server.get("/img/a.jpg?w=60&fm=webp&q=80").header("ETag"))
    }

    @Test func aServerWithAKeyAcceptsTheBuildersSignedURLs() async throws {
        let key = "thumbdkit-test-key-0123456789abcdef"
        let server = try ThumbdServer(files: ["a.jpg": Self.photo, "dir/b c.jpg": Self.photo]) { $0.security.key = key }
        defer { withExtendedLifetime(server) {} }
        let loader = ThumbdLoader(transport: URLSessionTransport(), decode: TestImage.decode)
        let signed = server.builder.imageURL("a.jpg", options: .init(width: 120, format: .jpeg))
        #expect(signed.query?.hasSuffix("&s=" + URLSigner(key: key).signature(of: Substring("/img/a.jpg?w=120&fm=jpeg"))) == true)
        let response = try await loader.load(signed)
        #expect(response.outcome == .network && response.image.width == 120)
        let encodedPath = try await loader.load(server.builder.imageURL("dir/b c.jpg", options: .init(width: 40)))
        #expect(encodedPath.image.width == 40)
        // A value with an escaped colon (q=auto:TARGET) is signed as it is sent.
        let auto = try await loader.load(server.builder.imageURL("a.jpg", options: .init(width: 50, format: .jpeg, quality: .autoTarget(0.003))))
        #expect(auto.image.width == 50)
        #expect(try server.get(server.builder.target(forImage: "a.jpg")).status == 200)
        // Unsigned, and signed with another key: refused.
        let unsigned = ThumbdURLBuilder(baseURL: server.baseURL).imageURL("a.jpg", options: .init(width: 120))
        await #expect(throws: ThumbdLoadError.httpStatus(403)) { try await loader.load(unsigned) }
        let wrongKey = ThumbdURLBuilder(baseURL: server.baseURL, signingKey: key + "x").imageURL("a.jpg", options: .init(width: 121))
        await #expect(throws: ThumbdLoadError.httpStatus(403)) { try await loader.load(wrongKey) }
    }
}
