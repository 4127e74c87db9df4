/// A request's transform in normal form: its parameters (and preset) validated and folded
/// into `TransformOptions`, with the server's defaults applied. Pure.
public struct TransformRequest: Sendable, Equatable {
    public var options: TransformOptions
    /// `fm=auto`: the format is chosen per request from `Accept` (and `Vary: Accept` sent).
    public var negotiatesFormat: Bool
    /// `w=auto` or `dpr=auto`: sizes come from each request's Client Hints (see
    /// `resolved(hintedWidth:hintedDPR:)`); until then `options` holds the sizes without them.
    public var hints: HintUse?
    /// What a request with hints asked for, kept to normalize again once they are known.
    private var pending: Pending?

    /// The server's settings a request's missing values come from.
    public struct Defaults: Sendable, Equatable {
        /// Bounds `w` and `h` after `dpr`.
        public var maxDimension: Int
        public var quality: Int
        public var progressive: Bool

        public init(maxDimension: Int = ThumbnailOptions.defaultMaxDimension, quality: Int = OutputFormat.defaultQuality,
                    progressive: Bool = false) {
            self.maxDimension = maxDimension
            self.quality = quality
            self.progressive = progressive
        }
    }

    /// Which sizes wait for Client Hints.
    public struct HintUse: Sendable, Equatable {
        /// `w=auto`: the width is `Sec-CH-Width` (already in device pixels).
        public var width: Bool
        /// `dpr=auto`: the ratio is `Sec-CH-DPR`, clamped to 1...4 (1 without the hint).
        public var dpr: Bool
    }

    private struct Pending: Sendable, Equatable {
        var requested: ThumbnailOptions
        var defaults: Defaults
    }

    /// `requested` in normal form. A preset must already be merged in (`preset` is ignored).
    public init(_ requested: ThumbnailOptions, defaults: Defaults) throws(ParameterError) {
        // `w=auto`: any `width` is ignored, the hint decides.
        var width = requested.autoWidth ? nil : requested.width
        var height = requested.height
        if requested.autoWidth || requested.autoDPR {
            hints = HintUse(width: requested.autoWidth, dpr: requested.autoDPR)
            pending = Pending(requested: requested, defaults: defaults)
        } else if let dpr = requested.dpr {
            (width, height) = try Self.scaled(width, height, by: dpr, maxDimension: defaults.maxDimension)
        }
        options = TransformOptions(width: width, height: height, fit: requested.fit ?? .contain, crop: requested.crop ?? .center,
                                   enlarge: requested.enlarge ?? false, format: requested.format?.output,
                                   quality: requested.quality ?? defaults.quality,
                                   progressive: requested.progressive ?? defaults.progressive, animated: requested.animated ?? false)
        negotiatesFormat = requested.format == .auto
    }

    /// `w` and `h` times a ratio, as the server rounds them, within the dimension limit.
    static func scaled(_ width: Int?, _ height: Int?, by dpr: Double, maxDimension: Int) throws(ParameterError) -> (Int?, Int?) {
        let w = width.map { ThumbnailOptions.scaled($0, by: dpr) }
        let h = height.map { ThumbnailOptions.scaled($0, by: dpr) }
        if max(w ?? 0, h ?? 0) > maxDimension {
            throw ParameterError(parameter: "dpr", detail: "w or h times dpr is over the limit of \(maxDimension) pixels")
        }
        return (w, h)
    }

    /// The request with the sizes its Client Hints give (`hintedWidth` from `Sec-CH-Width`,
    /// `hintedDPR` from `Sec-CH-DPR`), and the ratio applied for `dpr=auto`; itself when it
    /// uses none. `w=auto` without a width hint is a 400 naming `w`.
    public func resolved(hintedWidth: Int?, hintedDPR: Double?) throws(ParameterError) -> (TransformRequest, dpr: Double?) {
        guard let use = hints, let pending else { return (self, nil) }
        let maxDimension = pending.defaults.maxDimension
        let dpr = use.dpr ? ThumbnailOptions.clampedRatio(hintedDPR ?? 1) : pending.requested.dpr ?? 1
        var concrete = pending.requested
        concrete.autoWidth = false
        concrete.autoDPR = false
        concrete.dpr = nil
        if use.width { concrete.width = nil }
        (concrete.width, concrete.height) = try Self.scaled(concrete.width, concrete.height, by: dpr, maxDimension: maxDimension)
        if use.width {
            guard let hintedWidth else {
                throw ParameterError(parameter: "w", detail: "w=auto needs the Sec-CH-Width client hint, which the request did not send")
            }
            guard (1...maxDimension).contains(hintedWidth) else {
                throw ParameterError(parameter: "w", detail: "Sec-CH-Width \(hintedWidth) is outside 1...\(maxDimension)")
            }
            concrete.width = hintedWidth
        }
        return (try TransformRequest(concrete, defaults: pending.defaults), use.dpr ? dpr : nil)
    }
}
