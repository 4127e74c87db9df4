#if canImport(Glibc)
import Glibc
#endif

/// An IP address range: `10.0.0.0/8`, `fd00::/8`, or one address (`127.0.0.1`, `::1`).
/// IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) are matched as the IPv4 address they carry.
public struct IPPrefix: Sendable, Equatable, CustomStringConvertible {
    let address: [UInt8]
    let bits: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.addressBytes(String(parts[0])) else { return nil }
        let maxBits = address.count * 8
        var bits = maxBits
        if parts.count == 2 {
            guard parts[1].utf8.count <= 3, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(parts[1]),
                  n <= maxBits else { return nil }
            bits = n
        }
        self.address = address
        self.bits = bits
        description = text
    }

    /// Whether `candidate` (4 or 16 bytes, as `addressBytes` gives) lies in this range.
    public func contains(_ candidate: [UInt8]) -> Bool {
        guard candidate.count == address.count else { return false }
        var remaining = bits
        var i = 0
        while remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))
            if candidate[i] & mask != address[i] & mask { return false }
            remaining -= 8
            i += 1
        }
        return true
    }

    /// An address in text form as its bytes: 4 for IPv4 (and IPv4-mapped IPv6), 16 for IPv6.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }
}

/// The client behind trusted proxies, from `X-Forwarded-For` (as nginx's realip module
/// with `real_ip_recursive on`): the rightmost address that is not a trusted proxy. Only
/// the addresses the trusted proxies appended can be believed, so the walk starts at the
/// right; anything a client wrote further left is ignored.
public enum ForwardedFor {
    public static func client(_ values: [String], trusted: [IPPrefix]) -> String? {
        let hops = values.flatMap { $0.split(separator: ",") }.map { String($0.trimmingOWS()) }
        var leftmostTrusted: String?
        for hop in hops.reversed() {
            guard let bytes = IPPrefix.addressBytes(hop) else { return leftmostTrusted }
            guard trusted.contains(where: { $0.contains(bytes) }) else { return hop }
            leftmostTrusted = hop
        }
        return leftmostTrusted
    }
}
