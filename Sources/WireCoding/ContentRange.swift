/// A `Content-Range: bytes first-last/complete` field (RFC 9110 §14.4), as a 206 carries it:
/// read by ThumbdKit when it resumes, and by the server when it reads a video by ranges.
public struct ContentRange: Equatable, Sendable {
    public var first: Int
    public var last: Int
    /// nil when the server wrote `*` (length unknown).
    public var completeLength: Int?

    public init(first: Int, last: Int, completeLength: Int?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    public init?(parsing field: String) {
        let text = Self.trimmed(Substring(field))
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = Self.trimmed(text.dropFirst("bytes ".count))
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first else { return nil }
        self.first = first
        self.last = last
        if halves[1] == "*" {
            completeLength = nil
        } else {
            guard let complete = Int(halves[1]), complete > last else { return nil }
            completeLength = complete
        }
    }

    /// Optional whitespace (spaces and tabs, RFC 9110 §5.6.3) off both ends.
    private static func trimmed(_ text: Substring) -> Substring {
        var trimmed = text
        while let c = trimmed.first, c == " " || c == "\t" { trimmed.removeFirst() }
        while let c = trimmed.last, c == " " || c == "\t" { trimmed.removeLast() }
        return trimmed
    }
}
