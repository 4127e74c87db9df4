import Crypto
import Foundation
import Testing
import TestSupport
@testable import Thumbd
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
}
