import Clocks
import Crypto
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

@Suite struct SigningTests {
    static let key = "test-signing-key-0123456789"

    /// Computed here with swift-crypto directly, not through URLSigner.
    static func independentSignature(_ message: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(mac).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    @Test func signsAndVerifies() throws {
        let signer = URLSigner(key: Self.key)
        #expect(signer.sign("/img/cat.jpg?w=300") == "/img/cat.jpg?w=300&s=" + Self.independentSignature("/img/cat.jpg?w=300"))
        #expect(signer.sign("/img/cat.jpg") == "/img/cat.jpg?s=" + Self.independentSignature("/img/cat.jpg"))
        try signer.verify(signer.sign("/img/a%20b.jpg?h=1&w=2"))
        try signer.verify(signer.sign("/proxy?url=http%3A%2F%2Fexample.com%2Fa.jpg&w=2"))
    }

    @Test func refusesMissingMisplacedAndWrongSignatures() {
        let signer = URLSigner(key: Self.key)
        let good = signer.sign("/img/cat.jpg?w=300")
        let s = String(good.split(separator: "=").last!)
        #expect(throws: URLSigner.Refusal.missing) { try signer.verify("/img/cat.jpg?w=300") }
        #expect(throws: URLSigner.Refusal.missing) { try signer.verify("/img/cat.jpg") }
        #expect(throws: URLSigner.Refusal.notLast) { try signer.verify("/img/cat.jpg?s=\(s)&w=300") }
        #expect(throws: URLSigner.Refusal.notLast) { try signer.verify(good + "&s=\(s)") }
        #expect(throws: URLSigner.Refusal.wrong) { try signer.verify(String(good.dropLast())) }
        #expect(throws: URLSigner.Refusal.wrong) { try signer.verify("/img/cat.jpg?w=301&s=\(s)") }
        #expect(throws: URLSigner.Refusal.wrong) { try signer.verify("/img/cat.jpg?w=300&s=\(s.uppercased())") }
        #expect(throws: URLSigner.Refusal.wrong) { try URLSigner(key: "another-key-0123456789").verify(good) }
    }

    @Test func theServerRequiresValidSignatures() throws {
        let f = try LibraryFixture(files: ["cat.jpg": LibraryFixture.fakeJPEG(3000)]) { $0.security.key = Self.key }
        let signer = URLSigner(key: Self.key)
        func status(_ target: String) throws -> Int { try RawHTTPClient(port: f.port).request("GET", target).status }
        let good = signer.sign("/img/cat.jpg")
        #expect(try status(good) == 200)
        #expect(try status("/img/cat.jpg") == 403)                                   // unsigned
        #expect(try status(good.replacingOccurrences(of: "s=", with: "s=0")) == 403) // wrong
        #expect(try status(String(good.dropLast(4))) == 403)                          // truncated
        let otherParams = signer.sign("/img/cat.jpg?w=10")
        #expect(try status(otherParams.replacingOccurrences(of: "w=10", with: "w=20")) == 403)  // reused on other parameters
        let s = String(otherParams.split(separator: "&").last!)
        #expect(try status("/img/cat.jpg?\(s)&w=10") == 403)                          // not last
        let refused = try RawHTTPClient(port: f.port).request("GET", "/img/cat.jpg")
        #expect(refused.header("Content-Type") == "application/problem+json" && refused.text.contains("\"status\":403"))
        #expect(try status("/health") == 200)                                         // only /img and /proxy are signed
    }

    /// Two valid values of every parameter of the table, with what else it needs to do anything
    /// (nil: it has one value, and is added to a URL signed without it).
    static let changes: [String: (base: String, from: String, to: String?)] = [
        "w": ("", "100", "101"), "h": ("", "100", "101"), "dpr": ("w=50", "1", "2"), "fit": ("w=60&h=40", "contain", "cover"),
        "crop": ("w=60&h=40&fit=cover", "top", "bottom"), "enlarge": ("w=900", "0", "1"), "fm": ("w=50", "png", "webp"),
        "q": ("w=50&fm=jpeg", "70", "71"), "pr": ("w=50&fm=jpeg", "0", "1"), "anim": ("w=50&fm=webp", "0", "1"),
        "fp": ("w=60&h=40&fit=cover", "0.2,0.2", "0.8,0.8"), "redact": ("w=50", "face", nil),
        "rect": ("", "0,0,100,100", "10,10,100,100"), "trim": ("w=50", "10", "20"), "rot": ("w=50", "90", "180"),
        "flip": ("w=50", "h", "v"), "pad": ("w=50", "5", "6"), "bg": ("w=50&pad=5", "ffffff", "000000"),
        "blur": ("w=50", "2", "3"), "sharpen": ("w=50", "1", "2"), "gray": ("w=50", "0", "1"), "wm": ("w=100", "mark.png", "other.png"),
        "wmpos": ("w=100&wm=mark.png", "nw", "se"), "wmscale": ("w=100&wm=mark.png", "0.2", "0.3"),
        "wmop": ("w=100&wm=mark.png", "0.5", "0.6"), "wmpad": ("w=100&wm=mark.png", "5", "6"), "mb": ("w=50&fm=jpeg", "100000", "90000"),
        "page": ("w=50", "1", "2"), "t": ("w=50", "1", "2"),
    ]

    /// The class, not one case: for every row of the parameter table, a signed URL with only
    /// that parameter's value changed is refused (a mutation that left one parameter out of
    /// the signed message would be caught here).
    @Test func everyParameterIsCoveredByTheSignature() throws {
        let mark = try ImageSynthesis.pattern(width: 40, height: 20, bands: 4, seed: 3).encode(.png)
        let f = try LibraryFixture(files: ["cat.jpg": try ImageSynthesis.pattern(width: 320, height: 240, seed: 5).encode(.jpeg),
                                           "mark.png": mark, "other.png": mark]) { $0.security.key = Self.key }
        let signer = URLSigner(key: Self.key)
        func status(_ target: String) throws -> Int { try RawHTTPClient(port: f.port, timeout: 30).request("GET", target).status }
        let names = ThumbnailOptions.parameters.map(\.name)
        #expect(Set(names) == Set(Self.changes.keys), "every row needs two values here")
        for name in names {
            guard let change = Self.changes[name] else { continue }
            let base = change.base.isEmpty ? "" : change.base + "&"
            let signed = signer.sign("/img/cat.jpg?\(base)\(name)=\(change.from)")
            #expect(try status(signed) != 403, "\(name): the signed URL itself is refused")
            if let to = change.to {
                let changed = signed.replacingOccurrences(of: "\(name)=\(change.from)", with: "\(name)=\(to)")
                #expect(changed != signed)
                #expect(try status(changed) == 403, "\(name)=\(to) under the signature of \(name)=\(change.from)")
            } else {
                let added = signer.sign("/img/cat.jpg?\(change.base)").replacingOccurrences(of: "&s=", with: "&\(name)=\(change.from)&s=")
                #expect(try status(added) == 403, "\(name)=\(change.from) added under a signature without it")
            }
            // Left out, or added where it was not signed, it is refused alike.
            let without = signed.replacingOccurrences(of: "&\(name)=\(change.from)", with: "").replacingOccurrences(of: "?\(name)=\(change.from)&", with: "?")
            if without != signed { #expect(try status(without) == 403, "\(name) left out of a signed URL") }
        }
    }

    @Test func theSignCommandAgreesWithAnIndependentHMAC() throws {
        let result = try runProgram(ShutdownTests.binary.path, ["sign", "/img/cat.jpg?w=300&fit=cover"],
                                    environment: ["THUMBD_SECURITY_KEY": Self.key])
        #expect(result.status == 0)
        #expect(result.output == "/img/cat.jpg?w=300&fit=cover&s=\(Self.independentSignature("/img/cat.jpg?w=300&fit=cover"))\n")
    }

    // MARK: - expires

    static let now = 1_800_000_000

    @Test func expiresIsSignedBeforeTheSignature() throws {
        let signer = URLSigner(key: Self.key)
        let signed = signer.sign("/img/cat.jpg?w=300", expires: Self.now + 60)
        #expect(signed == "/img/cat.jpg?w=300&expires=\(Self.now + 60)&s=" + Self.independentSignature("/img/cat.jpg?w=300&expires=\(Self.now + 60)"))
        #expect(signer.sign("/img/cat.jpg", expires: 5) == "/img/cat.jpg?expires=5&s=" + Self.independentSignature("/img/cat.jpg?expires=5"))
        try signer.verify(signed)
        #expect(try URLSigner.expiry(of: signed) == Self.now + 60 && URLSigner.expiry(of: "/img/cat.jpg?w=1") == nil)
        #expect(throws: ParameterError.self) { try URLSigner.expiry(of: "/img/cat.jpg?expires=soon") }
        #expect(throws: ParameterError.self) { try URLSigner.expiry(of: "/img/cat.jpg?expires=1&expires=2") }
    }

    @Test func aSignedURLIsServedUntilItsExpiresAndRefusedAfter() throws {
        let clock = FixedWallClock(Self.now)
        let f = try LibraryFixture(files: ["cat.jpg": try ImageSynthesis.pattern(width: 200, height: 100).encode(.jpeg)], wallClock: clock) {
            $0.security.key = Self.key
        }
        let signer = URLSigner(key: Self.key)
        func get(_ target: String) throws -> RawHTTPClient.Response { try RawHTTPClient(port: f.port).request("GET", target) }
        let thumbnail = signer.sign("/img/cat.jpg?w=50", expires: Self.now + 10)
        let original = signer.sign("/img/cat.jpg", expires: Self.now + 10)
        #expect(try get(thumbnail).status == 200)                                          // before
        #expect(try get(original).status == 200)
        clock.set(Self.now + 10)
        let at = try get(thumbnail)                                                         // at: the last second it is valid
        #expect(at.status == 200 && at.header("X-Cache") == "memory")
        clock.set(Self.now + 11)
        let after = try get(thumbnail)                                                      // after, though its parse is memoized
        #expect(after.status == 403 && after.text.contains("expired") && after.text.contains("\"parameter\":\"expires\""), "\(after.text)")
        #expect(try get(original).status == 403)
        // Moved later by hand: the signature no longer matches.
        #expect(try get(thumbnail.replacingOccurrences(of: "expires=\(Self.now + 10)", with: "expires=\(Self.now + 9999)")).status == 403)
        // Dropped: likewise.
        #expect(try get(thumbnail.replacingOccurrences(of: "&expires=\(Self.now + 10)", with: "")).status == 403)
        // A fresh expiry of the same thumbnail is the same cache entry (expires is in no key).
        let renewed = try get(signer.sign("/img/cat.jpg?w=50", expires: Self.now + 3600))
        #expect(renewed.status == 200 && renewed.header("X-Cache") == "memory")
        #expect(f.service.app.thumbnails.transformsRun.count == 1)
    }

    @Test func withoutAKeyExpiresIsStillHonoured() throws {
        let clock = FixedWallClock(Self.now)
        let f = try LibraryFixture(files: ["cat.jpg": try ImageSynthesis.pattern(width: 200, height: 100).encode(.jpeg)], wallClock: clock)
        func status(_ target: String) throws -> Int { try RawHTTPClient(port: f.port).request("GET", target).status }
        #expect(try status("/img/cat.jpg?w=40&expires=\(Self.now + 5)") == 200)
        #expect(try status("/img/cat.jpg?w=40&expires=\(Self.now - 1)") == 403)
        #expect(try status("/img/cat.jpg?expires=\(Self.now + 5)") == 200)
        #expect(try status("/img/cat.jpg?w=40&expires=tomorrow") == 400)
        // Never part of a preset.
        #expect(throws: ParameterError.self) {
            try TransformRequest(query: QueryParameters(parsing: "p=x"), presets: ["x": "w=10&expires=5"], maxDimension: 100)
        }
    }

    @Test func theSignCommandSetsExpires() throws {
        let before = Int(Date().timeIntervalSince1970)
        let result = try runProgram(ShutdownTests.binary.path, ["sign", "--expires", "1h", "/img/cat.jpg?w=300"],
                                    environment: ["THUMBD_SECURITY_KEY": Self.key])
        #expect(result.status == 0)
        let signed = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try URLSigner(key: Self.key).verify(signed)
        let expires = try #require(try URLSigner.expiry(of: signed))
        #expect((before + 3600)...(Int(Date().timeIntervalSince1970) + 3601) ~= expires)
        let absolute = try runProgram(ShutdownTests.binary.path, ["sign", "--expires", "@1900000000", "/img/cat.jpg"],
                                      environment: ["THUMBD_SECURITY_KEY": Self.key])
        #expect(absolute.output.hasPrefix("/img/cat.jpg?expires=1900000000&s="))
        let bad = try runProgram(ShutdownTests.binary.path, ["sign", "--expires", "soon", "/img/cat.jpg"],
                                 environment: ["THUMBD_SECURITY_KEY": Self.key])
        #expect(bad.status == 2)
    }
}
