/// Which IP addresses an origin fetch may connect to. Pure; decided from the address bytes
/// at connect time, after DNS, for every hop.
public enum AddressPolicy {
    public enum Verdict: Equatable, Sendable {
        case allowed
        case refused(String)
    }

    /// An IPv4 address as 4 bytes.
    public static func classify(ipv4 a: [UInt8]) -> Verdict {
        precondition(a.count == 4)
        func within(_ prefix: [UInt8], _ bits: Int) -> Bool { matches(a, prefix, bits) }
        if within([0, 0, 0, 0], 8) { return .refused("this-network (0.0.0.0/8)") }
        if within([127, 0, 0, 0], 8) { return .refused("loopback") }
        if within([10, 0, 0, 0], 8) || within([172, 16, 0, 0], 12) || within([192, 168, 0, 0], 16) { return .refused("private") }
        if within([100, 64, 0, 0], 10) { return .refused("carrier-grade NAT (100.64.0.0/10)") }
        if within([169, 254, 0, 0], 16) { return .refused("link-local (cloud metadata lives here)") }
        if within([192, 0, 0, 0], 24) { return .refused("IETF protocol assignments") }
        if within([192, 0, 2, 0], 24) || within([198, 51, 100, 0], 24) || within([203, 0, 113, 0], 24) { return .refused("documentation") }
        if within([198, 18, 0, 0], 15) { return .refused("benchmarking") }
        if within([224, 0, 0, 0], 4) { return .refused("multicast") }
        if within([240, 0, 0, 0], 4) { return .refused("reserved or broadcast") }
        return .allowed
    }

    /// An IPv6 address as 16 bytes.
    public static func classify(ipv6 a: [UInt8]) -> Verdict {
        precondition(a.count == 16)
        func within(_ prefix: [UInt8], _ bits: Int) -> Bool { matches(a, prefix, bits) }
        if a.allSatisfy({ $0 == 0 }) { return .refused("unspecified") }
        if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] == 1 { return .refused("loopback") }
        if within([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], 96) { return .refused("IPv4-mapped") }
        if within([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96) { return .refused("IPv4-compatible") }
        if within([0, 0x64, 0xFF, 0x9B], 32) {
            // NAT64 (64:ff9b::/96, 64:ff9b:1::/48): the IPv4 inside decides.
            if case .refused(let why) = classify(ipv4: Array(a[12..<16])) { return .refused("NAT64 of \(why)") }
        }
        if within([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64) { return .refused("discard-only") }
        if within([0x20, 0x01, 0x0D, 0xB8], 32) { return .refused("documentation") }
        if within([0x20, 0x02], 16) {
            // 6to4: the embedded IPv4 decides.
            if case .refused(let why) = classify(ipv4: Array(a[2..<6])) { return .refused("6to4 of \(why)") }
        }
        if within([0xFC], 7) { return .refused("unique local (fc00::/7)") }
        if within([0xFE, 0x80], 10) { return .refused("link-local") }
        if within([0xFE, 0xC0], 10) { return .refused("site-local") }
        if within([0xFF], 8) { return .refused("multicast") }
        return .allowed
    }

    package static func matches(_ address: [UInt8], _ prefix: [UInt8], _ bits: Int) -> Bool {
        var remaining = bits
        var i = 0
        while remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))
            let p = i < prefix.count ? prefix[i] : 0
            if address[i] & mask != p & mask { return false }
            remaining -= 8
            i += 1
        }
        return true
    }
}
