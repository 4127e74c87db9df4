extension ThumbnailOptions {
    /// What `q` takes: a fixed quality, or `auto` (the server's target) or `auto:TARGET`.
    public enum Quality: Sendable, Hashable, ExpressibleByIntegerLiteral {
        case fixed(Int)
        /// `q=auto`: chosen per thumbnail against the server's target (`AutoQuality`).
        case auto
        /// `q=auto:TARGET`: chosen per thumbnail against this target, within `AutoQuality.targetRange`.
        case autoTarget(Double)

        public init(integerLiteral value: Int) { self = .fixed(value) }

        /// `80`, `auto`, `auto:0.003`: its text in a URL.
        public var text: String {
            switch self {
            case .fixed(let quality): String(quality)
            case .auto: "auto"
            case .autoTarget(let target): "auto:" + ThumbnailOptions.decimalText(target)
            }
        }

        /// `q`'s text read: 400 naming `q` when it is none of the three forms.
        static func read(_ text: String) throws(ParameterError) -> Quality {
            if text == "auto" { return .auto }
            if text.hasPrefix("auto:") {
                return .autoTarget(try ParameterText.decimal("q", String(text.dropFirst(5)), in: AutoQuality.targetRange))
            }
            guard let quality = ThumbnailOptions.integer(Substring(text)), qualityRange.contains(quality) else {
                throw ParameterError(parameter: "q", detail: "q must be an integer in \(qualityRange.lowerBound)..."
                    + "\(qualityRange.upperBound), auto or auto:TARGET, got '\(text)'")
            }
            return .fixed(quality)
        }
    }
}
