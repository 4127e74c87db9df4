import Foundation

/// How far an encoded thumbnail looks from the pixels it was encoded from: 1 - MS-SSIM on
/// luma, three scales, 0 for the same pixels. What `q=auto` keeps within its target.
///
/// SSIM (Wang et al. 2004) with its usual constants (K1 0.01, K2 0.03, L 255) over 8x8 windows
/// every 4 pixels (x264's layout: sums of 4x4 blocks, each window four of them), so a 600 px
/// thumbnail costs under 3 ms. Three scales (each half the last) with the first three
/// of Wang et al.'s multi-scale weights, renormalized: the coarser scales weigh the structure
/// a viewer sees at a glance. Luma only: every encoder here keeps chroma at half resolution or
/// more, and the eye resolves colour detail less finely than brightness.
public enum PerceptualDistance {
    static let weights: [Double] = [0.0448, 0.2856, 0.3001]
    static let c1 = (0.01 * 255) * (0.01 * 255)
    static let c2 = (0.03 * 255) * (0.03 * 255)

    /// The distance between `reference` and `other`, which must have the same size.
    public static func distance(_ reference: LumaPlane, _ other: LumaPlane) -> Double {
        precondition(reference.width == other.width && reference.height == other.height, "planes of different sizes")
        var x = reference.pixels.map(Double.init), y = other.pixels.map(Double.init)
        var width = reference.width, height = reference.height
        var terms: [(value: Double, weight: Double)] = []
        for scale in weights.indices {
            let last = scale == weights.count - 1 || width / 2 < 8 || height / 2 < 8
            let (contrast, both) = similarity(x, y, width: width, height: height)
            terms.append((last ? both : contrast, weights[scale]))
            if last { break }
            (y, _, _) = halved(y, width: width, height: height)
            (x, width, height) = halved(x, width: width, height: height)
        }
        let total = terms.reduce(0) { $0 + $1.weight }
        var product = 1.0
        for term in terms { product *= pow(max(term.value, 0), term.weight / total) }
        return min(1, max(0, 1 - product))
    }

    /// The mean contrast-structure term and the mean SSIM over the windows of one scale; the
    /// whole plane is one window when it is smaller than a window.
    static func similarity(_ x: [Double], _ y: [Double], width: Int, height: Int) -> (contrast: Double, both: Double) {
        let columns = width / 4, rows = height / 4
        guard columns >= 2 && rows >= 2 else {
            let n = Double(x.count)
            var s = Sums()
            for i in x.indices { s.add(x[i], y[i]) }
            return s.terms(count: n)
        }
        // Sums over 4x4 blocks, then over each 2x2 of blocks (an 8x8 window, every 4 pixels).
        var blocks = [Sums](repeating: Sums(), count: columns * rows)
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                for row in 0..<(rows * 4) {
                    let base = row * width, blockRow = (row / 4) * columns
                    for column in 0..<(columns * 4) {
                        blocks[blockRow + column / 4].add(xs[base + column], ys[base + column])
                    }
                }
            }
        }
        var contrast = 0.0, both = 0.0
        for row in 0..<(rows - 1) {
            for column in 0..<(columns - 1) {
                let i = row * columns + column
                let window = blocks[i] + blocks[i + 1] + blocks[i + columns] + blocks[i + columns + 1]
                let terms = window.terms(count: 64)
                contrast += terms.contrast
                both += terms.both
            }
        }
        let windows = Double((rows - 1) * (columns - 1))
        return (contrast / windows, both / windows)
    }

    /// Each 2x2 of pixels averaged (an odd last row or column dropped).
    static func halved(_ plane: [Double], width: Int, height: Int) -> ([Double], Int, Int) {
        let w = width / 2, h = height / 2
        var out = [Double](repeating: 0, count: w * h)
        for row in 0..<h {
            let top = 2 * row * width, bottom = top + width
            for column in 0..<w {
                let c = 2 * column
                out[row * w + column] = (plane[top + c] + plane[top + c + 1] + plane[bottom + c] + plane[bottom + c + 1]) / 4
            }
        }
        return (out, w, h)
    }

    struct Sums {
        var x = 0.0, y = 0.0, xx = 0.0, yy = 0.0, xy = 0.0

        mutating func add(_ a: Double, _ b: Double) {
            x += a
            y += b
            xx += a * a
            yy += b * b
            xy += a * b
        }

        static func + (l: Sums, r: Sums) -> Sums {
            Sums(x: l.x + r.x, y: l.y + r.y, xx: l.xx + r.xx, yy: l.yy + r.yy, xy: l.xy + r.xy)
        }

        /// SSIM's contrast-structure term and the whole SSIM of the pixels summed.
        func terms(count n: Double) -> (contrast: Double, both: Double) {
            let mx = x / n, my = y / n
            let vx = max(0, xx / n - mx * mx), vy = max(0, yy / n - my * my), cov = xy / n - mx * my
            let contrast = (2 * cov + PerceptualDistance.c2) / (vx + vy + PerceptualDistance.c2)
            let luminance = (2 * mx * my + PerceptualDistance.c1) / (mx * mx + my * my + PerceptualDistance.c1)
            return (contrast, luminance * contrast)
        }
    }
}
