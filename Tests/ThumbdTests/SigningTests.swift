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
