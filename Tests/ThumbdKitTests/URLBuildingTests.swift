import Foundation
import Testing
import TestSupport
import Thumbd
@testable import ThumbdKit

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
        #expect(ThumbnailOptions.decimalText(2) == "2" && ThumbnailOptions.decimalText(2.625) == "2.625")
    }

    @Test func pathsAndRemoteURLsAreEncodedLikeTheServersLinks() {
        let builder = ThumbdURLBuilder(baseURL: URL(string: "http://thumbs.example/")!)
        #expect(builder.target(forImage: "/dir/my photo+1 é.jpg") == "/img/dir/my%20photo%2B1%20%C3%A9.jpg")
        #expect(builder.imageURL("a b.jpg", options: .init(width: 10)).absoluteString == "http://thumbs.example/img/a%20b.jpg?w=10")
        #expect(builder.target(forRemote: "https://cdn.example/a b.jpg?x=1&y=2", options: .init(width: 50))
            == "/proxy?url=https%3A%2F%2Fcdn.example%2Fa%20b.jpg%3Fx%3D1%26y%3D2&w=50")
    }

    @Test func shaAndHMACMatchPublishedVectors() {
        #expect(SHA256.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hex(SHA256.hash(twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // 64 bytes: the padding takes a block of its own.
        #expect(SHA256.hex(SHA256.hash([UInt8](repeating: 0x61, count: 64)))
            == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
        // RFC 4231 test case 2.
        #expect(SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
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
        #expect(try server.get(server.builder.target(forImage: "a.jpg")).status == 200)
        // Unsigned, and signed with another key: refused.
        let unsigned = ThumbdURLBuilder(baseURL: server.baseURL).imageURL("a.jpg", options: .init(width: 120))
        await #expect(throws: ThumbdLoadError.httpStatus(403)) { try await loader.load(unsigned) }
        let wrongKey = ThumbdURLBuilder(baseURL: server.baseURL, signingKey: key + "x").imageURL("a.jpg", options: .init(width: 121))
        await #expect(throws: ThumbdLoadError.httpStatus(403)) { try await loader.load(wrongKey) }
    }
}
