/// A `Range: bytes=...` request (RFC 9110 §14.2), parsed but not yet applied to a length.
public struct RangeRequest: Sendable, Equatable {
    public enum Spec: Sendable, Equatable {
        /// `a-b` (b nil for `a-`).
        case from(UInt64, through: UInt64?)
        /// `-n`: the last n bytes.
        case suffix(UInt64)
    }

    public var specs: [Spec]

    /// More ranges than this in one request is treated as abuse and the header is ignored.
    public static let maxRanges = 64

    public init(specs: [Spec]) { self.specs = specs }

    /// Parses a Range field. Nil for anything malformed or in another unit: such a header is ignored.
    public init?(parsing field: String) {
        let trimmed = field.trimmingOWS()
        guard let eq = trimmed.firstIndex(of: "="), trimmed[..<eq].trimmingOWS().equalsIgnoringASCIICase("bytes") else { return nil }
        var specs: [Spec] = []
        for item in trimmed[trimmed.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false) {
            let part = item.trimmingOWS()
            if part.isEmpty { continue }  // 1#element allows empty list items
            guard let dash = part.firstIndex(of: "-") else { return nil }
            let first = part[..<dash], last = part[part.index(after: dash)...]
            if first.isEmpty {
                guard let n = Self.number(last) else { return nil }
                specs.append(.suffix(n))
            } else {
                guard let a = Self.number(first) else { return nil }
                if last.isEmpty {
                    specs.append(.from(a, through: nil))
                } else {
                    guard let b = Self.number(last), b >= a else { return nil }
                    specs.append(.from(a, through: b))
                }
            }
            if specs.count > Self.maxRanges { return nil }
        }
        guard !specs.isEmpty else { return nil }
        self.specs = specs
    }

    private static func number(_ s: Substring) -> UInt64? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        // Absurdly long numbers saturate: they still denote "past the end".
        return s.utf8.count > 18 ? UInt64(Int64.max) : UInt64(s)
    }

    /// The satisfiable ranges for a representation of `length` bytes, as half-open byte
    /// ranges, overlapping or adjacent ones merged. Empty means 416.
    public func resolve(length: UInt64) -> [Range<UInt64>] {
        var ranges: [Range<UInt64>] = []
        for spec in specs {
            switch spec {
            case .from(let a, let b):
                guard a < length else { continue }
                let end = b.map { min($0, length - 1) } ?? (length - 1)
                ranges.append(a..<(end + 1))
            case .suffix(let n):
                guard n > 0, length > 0 else { continue }
                ranges.append((length - min(n, length))..<length)
            }
        }
        return Self.coalesced(ranges)
    }

    /// Keeps the client's order unless two ranges overlap or touch; then they are merged
    /// and sent in ascending order (RFC 9110 §14.6 lets the server coalesce).
    static func coalesced(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        guard ranges.count > 1 else { return ranges }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var touching = false
        for i in 1..<sorted.count where sorted[i].lowerBound <= sorted[i - 1].upperBound { touching = true }
        guard touching else { return ranges }
        var merged: [Range<UInt64>] = [sorted[0]]
        for r in sorted.dropFirst() {
            let last = merged[merged.count - 1]
            if r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }
}
