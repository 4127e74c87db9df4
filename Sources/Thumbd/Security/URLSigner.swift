import Crypto

/// Signed request targets: `s` is the lowercase hex of the first 16 bytes of
/// HMAC-SHA256(key, target without `s`), and it must be the last parameter.
public struct URLSigner: Sendable {
    private let key: SymmetricKey

    public init(key: String) {
        self.key = SymmetricKey(data: Array(key.utf8))
    }

    /// The signature of `message` (a target without `s`).
    public func signature(of message: Substring) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: key)
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for byte in Array(mac).prefix(16) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `target` with its signature appended as the last parameter.
    public func sign(_ target: String) -> String {
        target + (target.contains("?") ? "&" : "?") + "s=" + signature(of: Substring(target))
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
    static func split(_ target: String) throws(Refusal) -> (message: Substring, signature: Substring) {
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
