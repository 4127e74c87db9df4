import Crypto
import WireCoding

/// Signed request targets, as the server checks them when `security.key` is set and as a
/// backend signs them for its apps: `s` is the lowercase hex of the first 16 bytes of
/// HMAC-SHA256(key, target without `s`), and it must be the last parameter.
///
/// - Important: Never ship a signing key inside an app: anyone can read it out of the binary
///   and sign any transform, which is what the key exists to prevent. Sign on a backend you
///   control and hand the app finished URLs.
public struct URLSigner: Sendable {
    private let key: SymmetricKey

    public init(key: String) {
        self.key = SymmetricKey(data: Array(key.utf8))
    }

    /// The signature of `message` (a target without `s`).
    public func signature(of message: some StringProtocol) -> String {
        Hex.lowercase(Array(HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: key)).prefix(16))
    }

    /// `target` with its signature appended as the last parameter; with `expires` (Unix
    /// seconds), `expires=` before it, so the signature covers it: the server refuses the URL
    /// once that second has passed.
    public func sign(_ target: String, expires: Int? = nil) -> String {
        let message = expires.map { target + (target.contains("?") ? "&" : "?") + ThumbnailOptions.expiryParameter + "=\($0)" } ?? target
        return message + (message.contains("?") ? "&" : "?") + "s=" + signature(of: message)
    }

    /// The `expires` of a target's query (Unix seconds); nil when it has none; an error naming
    /// it when it is malformed or repeated.
    public static func expiry(of target: some StringProtocol) throws(ParameterError) -> Int? {
        guard let q = target.firstIndex(of: "?") else { return nil }
        let name = ThumbnailOptions.expiryParameter
        let values = target[target.index(after: q)...].split(separator: "&").filter { $0 == name || $0.hasPrefix(name + "=") }
        guard let first = values.first else { return nil }
        guard values.count == 1 else { throw .repeated(name) }
        let text = first.dropFirst(name.count + 1)
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int(text) else {
            throw ParameterError(parameter: name, detail: "\(name) must be a time in Unix seconds, got '\(text)'")
        }
        return seconds
    }

    public enum Refusal: Error, Equatable {
        case missing
        case notLast
        case wrong
    }

    /// Checks a request target's signature.
    public func verify(_ target: String) throws(Refusal) {
        let (message, given) = try Self.split(target)
        let expected = signature(of: message)
        guard ConstantTime.equal(Array(given.utf8), Array(expected.utf8)) else { throw .wrong }
    }

    /// The signed message and the given signature: `s` must be present, once, and last.
    public static func split(_ target: String) throws(Refusal) -> (message: Substring, signature: Substring) {
        guard let q = target.firstIndex(of: "?") else { throw .missing }
        let query = target[target.index(after: q)...]
        let pieces = query.split(separator: "&", omittingEmptySubsequences: false)
        let signatures = pieces.filter { $0.hasPrefix("s=") || $0 == "s" }
        guard !signatures.isEmpty else { throw .missing }
        guard signatures.count == 1, let last = pieces.last, last.hasPrefix("s=") else { throw .notLast }
        let given = last.dropFirst(2)
        // Everything before "&s=..." (or before "?s=..." when it is the only parameter).
        let cut = target.index(last.startIndex, offsetBy: -1)
        let message = pieces.count == 1 ? target[..<q] : target[..<cut]
        return (message, given)
    }
}
