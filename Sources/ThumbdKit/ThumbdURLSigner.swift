/// Signs request targets the way thumbd checks them when `security.key` is set: `s` is the
/// lowercase hex of the first 16 bytes of HMAC-SHA256(key, target without `s`), appended as
/// the last parameter.
///
/// - Important: Never ship a signing key inside an app: anyone can read it out of the binary
///   and sign any transform, which is what the key exists to prevent. Sign on a backend you
///   control (this type runs on Linux for that) and hand the app finished URLs.
public struct ThumbdURLSigner: Sendable {
    private let key: [UInt8]

    public init(key: String) {
        self.key = Array(key.utf8)
    }

    /// The signature of `target` (a path with its query, without `s`).
    public func signature(of target: String) -> String {
        SHA256.hex(SHA256.hmac(key: key, message: Array(target.utf8)).prefix(16))
    }

    /// `target` with `s` appended as its last parameter.
    public func sign(_ target: String) -> String {
        target + (target.contains("?") ? "&" : "?") + "s=" + signature(of: target)
    }
}
