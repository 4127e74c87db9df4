import HTTP
import ThumbdCore

/// What of a request's own headers its answer depended on, which the answer must say: `Vary`
/// on `Accept` for `fm=auto` and on the Client Hints used, and `Content-DPR` for the ratio
/// `dpr=auto` applied. Requests that used no hint share prepared heads (with or without
/// `Vary: Accept`); the rest are presented one by one.
struct AnswerVariance: Sendable, Equatable {
    var negotiatedFormat: Bool
    var usedDPRHint = false
    var usedWidthHint = false
    /// The ratio `dpr=auto` applied.
    var appliedDPR: Double?

    static let none = AnswerVariance(negotiatedFormat: false)

    /// Whether the answer used a hint, so the prepared heads (which name none) do not fit it.
    var usesHints: Bool { usedDPRHint || usedWidthHint }

    /// The `Vary` field's value; nil when it varies on nothing.
    var varyValue: String? {
        var names: [HTTPFieldName] = negotiatedFormat ? [.accept] : []
        if usedDPRHint { names.append(.secCHDPR) }
        if usedWidthHint { names.append(.secCHWidth) }
        return names.isEmpty ? nil : names.map(\.text).joined(separator: ", ")
    }
}
