/// A `Content-Range: bytes first-last/complete` field (RFC 9110 §14.4), as a 206 carries it.
struct ContentRange: Equatable, Sendable {
    var first: Int
    var last: Int
    /// nil when the server wrote `*` (length unknown).
    var completeLength: Int?

    init(first: Int, last: Int, completeLength: Int?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    init?(parsing field: String) {
        let text = field.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
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
}
