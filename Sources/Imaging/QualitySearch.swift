import Foundation
import ThumbdProtocol

/// The search behind `q=auto`: the lowest encoder quality in `floor...ceiling` whose output
/// stays within `target` of its pixels (`PerceptualDistance`), in at most `encodes` encodings.
///
/// The distance falls about exponentially as the quality rises, so each next quality is where
/// the line through the two nearest known distances (in log) meets the target, or, with one
/// known, where the format's usual slope does (at most `reach` qualities away). A passing
/// quality lowers the top of the range, a failing one raises the bottom; it ends within
/// `close` of the lowest passing quality or when the encodings run out, with the lowest passing
/// quality seen. When none has passed, the last encoding is the ceiling's. Pure and
/// deterministic: the same pixels give the same choice on every replica.
public struct QualitySearch: Sendable {
    public var target: Double
    public var floor: Int
    public var ceiling: Int
    public var encodes: Int
    /// Where the search starts: the quality most thumbnails of the format end near.
    public var start: Int
    /// d(ln distance)/d(quality) when only one point is known: about -0.035 for JPEG and WebP
    /// thumbnails (the distance halves every 20 qualities).
    public var slope: Double

    public init(target: Double, floor: Int, ceiling: Int, encodes: Int, start: Int, slope: Double = -0.035) {
        precondition(floor <= ceiling && encodes >= 2 && slope < 0, "a search needs a range, two encodings and a falling slope")
        self.target = target
        self.floor = floor
        self.ceiling = ceiling
        self.encodes = encodes
        self.start = start
        self.slope = slope
    }

    /// The furthest a guess made with the usual slope goes from its measurement: distances far from
    /// the target bend (WebP's fall steeply above 80 and in steps below), and a guess that lands
    /// in such a bend costs an encoding without narrowing the range much.
    static let reach = 12
    /// How near the lowest passing quality the answer may stay: a quality step is 1-2% of the
    /// bytes, an encoding and its measurement a quarter of an AVIF miss.
    static let close = 2

    /// One encoding tried.
    public struct Trial: Sendable {
        public var quality: Int
        public var distance: Double
        public var bytes: [UInt8]

        public init(quality: Int, distance: Double, bytes: [UInt8]) {
            self.quality = quality
            self.distance = distance
            self.bytes = bytes
        }
    }

    /// What it chose, and what that cost.
    public struct Choice: Sendable, Equatable {
        public var quality: Int
        public var distance: Double
        /// Encodings made (and measured) to choose.
        public var encodes: Int
        /// Whether the choice is within the target (false: the ceiling, which is not).
        public var met: Bool
    }

    /// Runs `encode` (an encoding at a quality and its distance) at most `encodes` times.
    public func run<E: Error>(_ encode: (Int) throws(E) -> Trial) throws(E) -> (bytes: [UInt8], choice: Choice) {
        var tried: [Trial] = []
        var bottom = floor  // every quality below it failed
        var top = ceiling + 1  // the lowest that passed; ceiling + 1 while none has
        var next = min(ceiling, max(floor, start))
        while tried.count < encodes {
            let trial = try encode(next)
            tried.append(trial)
            if trial.distance <= target { top = min(top, trial.quality) } else { bottom = max(bottom, trial.quality + 1) }
            // Within `close` of the lowest passing quality, another encoding saves too little.
            if (top <= ceiling && top - bottom <= Self.close) || bottom > ceiling || tried.count == encodes { break }
            let left = encodes - tried.count
            if top > ceiling && left == 1 && !tried.contains(where: { $0.quality == ceiling }) {
                next = ceiling  // the last encoding: the best this search may give
            } else {
                next = predicted(from: tried, within: bottom...(top - 1))
            }
        }
        let passed = tried.filter { $0.distance <= target }.min { $0.quality < $1.quality }
        let chosen = passed ?? tried.max { $0.quality < $1.quality }!
        return (chosen.bytes, Choice(quality: chosen.quality, distance: chosen.distance, encodes: tried.count, met: passed != nil))
    }

    /// Where the distance is expected to meet the target, within `range`, not yet tried.
    func predicted(from tried: [Trial], within range: ClosedRange<Int>) -> Int {
        let log = { (d: Double) in Foundation.log(max(d, 1e-6)) }
        let goal = log(target)
        // The failing point just below and the passing one just above, else the two nearest.
        let failing = tried.filter { $0.distance > target }.max { $0.quality < $1.quality }
        let passing = tried.filter { $0.distance <= target }.min { $0.quality < $1.quality }
        var estimate: Double
        if let failing, let passing, passing.quality > failing.quality,
           log(failing.distance) - log(passing.distance) > 1e-9 {
            let share = (log(failing.distance) - goal) / (log(failing.distance) - log(passing.distance))
            estimate = Double(failing.quality) + share * Double(passing.quality - failing.quality)
        } else {
            let nearest = (failing ?? passing)!
            let others = tried.filter { $0.quality != nearest.quality && ($0.distance > target) == (nearest.distance > target) }
            var slope: Double?
            if let other = others.min(by: { abs($0.quality - nearest.quality) < abs($1.quality - nearest.quality) }) {
                let measured = (log(nearest.distance) - log(other.distance)) / Double(nearest.quality - other.quality)
                if measured < -1e-4 { slope = measured }
            }
            // From one measurement and the usual slope the line is a guess: a step of at most `reach`.
            var step = abs(goal - log(nearest.distance)) / abs(slope ?? self.slope)
            if slope == nil { step = min(Double(Self.reach), step) }
            estimate = Double(nearest.quality) + (nearest.distance > target ? step : -step)
        }
        // Rounded up: a quality just over the target would cost one more encoding to undo.
        var quality = min(range.upperBound, max(range.lowerBound, Int(estimate.rounded(.up))))
        let used = Set(tried.map(\.quality))
        while used.contains(quality) && quality > range.lowerBound { quality -= 1 }
        while used.contains(quality) && quality < range.upperBound { quality += 1 }
        return quality
    }
}

extension OutputFormat {
    /// Where `q=auto` starts for the format: near what the bench photographs' thumbnails end
    /// at with the default target (docs/benchmarks.md), so most searches take three encodings.
    var autoQualityStart: Int {
        switch self {
        case .avif: 68
        case .webp: 84
        default: 74
        }
    }
}
