/// An entity tag (RFC 9110 §8.8.3).
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    public let opaque: String
    public let isWeak: Bool
    /// The header form: `"abc"` or `W/"abc"`.
    public let description: String

    public init(_ opaque: String, weak: Bool = false) {
        self.opaque = opaque
        self.isWeak = weak
        self.description = (weak ? "W/\"" : "\"") + opaque + "\""
    }

    /// Parses one entity tag; nil when malformed.
    public init?<S: StringProtocol>(parsing text: S) {
        var s = Substring(text).trimmingOWS()
        var weak = false
        if s.hasPrefix("W/") {
            weak = true
            s = s.dropFirst(2)
        }
        guard s.count >= 2, s.first == "\"", s.last == "\"" else { return nil }
        let inner = s.dropFirst().dropLast()
        // etagc = %x21 / %x23-7E / obs-text
        guard inner.utf8.allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }) else { return nil }
        self.init(String(inner), weak: weak)
    }

    public func strongMatches(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }

    public func weakMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }

    /// A field such as If-None-Match: `*` or a comma-separated list of entity tags.
    public enum List: Sendable, Equatable {
        case any
        case tags([EntityTag])

        public init?(parsing field: String) {
            let trimmed = field.trimmingOWS()
            if trimmed == "*" {
                self = .any
                return
            }
            var tags: [EntityTag] = []
            var rest = Substring(trimmed)
            while !rest.isEmpty {
                rest = rest.trimmingOWS()
                if rest.first == "," {
                    rest = rest.dropFirst()
                    continue
                }
                var end = rest.startIndex
                if rest.hasPrefix("W/") { end = rest.index(end, offsetBy: 2) }
                guard end < rest.endIndex, rest[end] == "\"" else { return nil }
                guard let close = rest[rest.index(after: end)...].firstIndex(of: "\"") else { return nil }
                let tagEnd = rest.index(after: close)
                guard let tag = EntityTag(parsing: rest[..<tagEnd]) else { return nil }
                tags.append(tag)
                rest = rest[tagEnd...].trimmingOWS()
                guard rest.isEmpty || rest.first == "," else { return nil }
            }
            guard !tags.isEmpty else { return nil }
            self = .tags(tags)
        }

        public func containsWeakMatch(for tag: EntityTag) -> Bool {
            switch self {
            case .any: true
            case .tags(let tags): tags.contains { $0.weakMatches(tag) }
            }
        }

        public func containsStrongMatch(for tag: EntityTag) -> Bool {
            switch self {
            case .any: true
            case .tags(let tags): tags.contains { $0.strongMatches(tag) }
            }
        }
    }
}
