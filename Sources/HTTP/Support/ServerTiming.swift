import WireCoding

/// The `Server-Timing` field (W3C Server Timing) as a value: the steps a response went
/// through, each with an optional duration and description, rendered only when written.
public struct ServerTiming: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        public var name: String
        /// Seconds; nil when not worth measuring.
        public var duration: Double?
        public var description: String?

        public init(_ name: String, duration: Double? = nil, description: String? = nil) {
            self.name = name
            self.duration = duration
            self.description = description
        }
    }

    public private(set) var steps: [Step]

    public init(_ steps: [Step] = []) { self.steps = steps }

    public mutating func append(_ step: Step) { steps.append(step) }

    /// `read;dur=1.20, transform;dur=30.05` or `cache;desc=memory`.
    public var fieldValue: String {
        steps.map { step in
            var text = step.name
            if let description = step.description { text += ";desc=" + description }
            if let duration = step.duration { text += ";dur=" + Self.milliseconds(duration) }
            return text
        }.joined(separator: ", ")
    }

    /// `seconds` as milliseconds with two decimals, without Foundation's costly `String(format:)`:
    /// 0.0123 -> "12.30".
    public static func milliseconds(_ seconds: Double) -> String {
        var text: [UInt8] = []
        appendMilliseconds(seconds, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `milliseconds(seconds)` appended as bytes (the access log composes its lines so).
    public static func appendMilliseconds(_ seconds: Double, to out: inout [UInt8]) {
        let hundredths = Int64(max(0, (seconds * 100_000).rounded()))
        DecimalText.append(hundredths / 100, to: &out)
        out.append(UInt8(ascii: "."))
        if hundredths % 100 < 10 { out.append(UInt8(ascii: "0")) }
        DecimalText.append(hundredths % 100, to: &out)
    }
}
