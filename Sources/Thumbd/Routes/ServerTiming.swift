/// Formatting for `Server-Timing` durations, without Foundation's costly `String(format:)`.
enum ServerTiming {
    /// `seconds` as milliseconds with two decimals: 0.0123 -> "12.30".
    static func milliseconds(_ seconds: Double) -> String {
        let hundredths = max(0, Int((seconds * 100_000).rounded()))
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + String(fraction)
    }
}
