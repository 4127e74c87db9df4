import HTTP
import ThumbdCore

/// The Client Hints a request sent (`Sec-CH-DPR`, `Sec-CH-Width`), read only when a
/// transform asks for them (`dpr=auto`, `w=auto`).
public struct ClientHints: Sendable, Equatable {
    public var dpr: Double?
    public var width: Int?

    public init(dpr: Double? = nil, width: Int? = nil) {
        self.dpr = dpr
        self.width = width
    }

    public init(_ headers: HTTPHeaders) {
        dpr = headers[.secCHDPR].flatMap { Double($0.trimmingOWS()) }.flatMap { $0.isFinite ? $0 : nil }
        width = headers[.secCHWidth].flatMap { Int($0.trimmingOWS()) }
    }

    /// What servers that use hints announce (`Accept-CH`).
    public static let accepted = "Sec-CH-DPR, Sec-CH-Width, Sec-CH-Viewport-Width"
}
