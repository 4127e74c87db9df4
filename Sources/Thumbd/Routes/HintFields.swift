import HTTP

/// What an answer to a request that used Client Hints carries: `Vary` on the hints it used
/// (beside `Accept` for `fm=auto`) and `Content-DPR`, the ratio applied for `dpr=auto`.
struct HintFields: Sendable, Equatable {
    var usedDPR: Bool
    var usedWidth: Bool
    var dpr: Double?

    init?(_ use: TransformRequest.HintUse?, dpr: Double?) {
        guard let use else { return nil }
        usedDPR = use.dpr
        usedWidth = use.width
        self.dpr = dpr
    }

    fileprivate func apply(to headers: inout HTTPHeaders, negotiatesFormat: Bool) {
        var vary: [String] = negotiatesFormat ? ["Accept"] : []
        if usedDPR { vary.append("Sec-CH-DPR") }
        if usedWidth { vary.append("Sec-CH-Width") }
        headers.set("Vary", vary.joined(separator: ", "))
        if let dpr { headers.set("Content-DPR", DecimalText.format(dpr)) }
    }
}

extension Representation {
    /// The representation with the fields of the hints it used (itself when it used none).
    func with(_ hints: HintFields?, negotiatesFormat: Bool) -> Representation {
        guard let hints else { return self }
        var copy = self
        hints.apply(to: &copy.headers, negotiatesFormat: negotiatesFormat)
        return copy
    }
}
