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

    func apply(to headers: inout HTTPHeaders, negotiatesFormat: Bool) {
        var vary: [String] = negotiatesFormat ? ["Accept"] : []
        if usedDPR { vary.append("Sec-CH-DPR") }
        if usedWidth { vary.append("Sec-CH-Width") }
        headers.set("Vary", vary.joined(separator: ", "))
        if let dpr { headers.set("Content-DPR", DecimalText.format(dpr)) }
    }
}
