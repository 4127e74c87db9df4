/// `origins.allow`: the hosts remote images may come from. Exact names, `*.example.com`
/// (any subdomain, not example.com itself), or `*` (any host: only sensible together with
/// the connect-time address check). Empty: remote images are off.
public struct OriginAllowList: Sendable, Equatable {
    public let patterns: [String]

    public init(_ patterns: [String]) {
        self.patterns = patterns.map { Self.normalize($0) }.filter { !$0.isEmpty }
    }

    public var isEmpty: Bool { patterns.isEmpty }

    public func allows(host: String) -> Bool {
        let h = Self.normalize(host)
        guard !h.isEmpty else { return false }
        for pattern in patterns {
            if pattern == "*" || pattern == h { return true }
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)  // ".example.com"
                if h.hasSuffix(suffix) && h.count > suffix.count { return true }
            }
        }
        return false
    }

    /// Lower case, no trailing dot, IPv6 brackets removed.
    package static func normalize(_ host: String) -> String {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        while h.hasSuffix(".") { h.removeLast() }
        return h
    }
}
