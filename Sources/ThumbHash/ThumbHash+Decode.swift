#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ThumbHash {
    /// Pixels rendered from a hash: RGBA8, at the hash's aspect ratio, the longer side `maxSide` (32 by default).
    ///
    /// Nil when the hash is too short for the terms its header announces, its header is not one
    /// an encoder writes, or `maxSide` is outside 1...1024 (a placeholder is meant to be scaled up).
    public static func decode(_ hash: [UInt8], maxSide: Int = 32) -> (width: Int, height: Int, rgba: [UInt8])? {
        guard (1...1024).contains(maxSide), let header = Header(hash),
              let ratio = approximateAspectRatio(hash) else { return nil }
        let lTerms = terms(nx: header.lx, ny: header.ly)
        let pqTerms = terms(nx: 3, ny: 3)
        let aTerms = header.hasAlpha ? terms(nx: 5, ny: 5) : []
        let acStart = header.hasAlpha ? 6 : 5
        let acCount = lTerms.count + 2 * pqTerms.count + aTerms.count
        guard hash.count >= acStart + (acCount + 1) / 2 else { return nil }

        // 4-bit terms, low nibble first, mapped to -1...1 and multiplied by their channel's scale.
        // P and Q get 1.25x, as the reference does, to win back saturation lost to quantisation.
        var unit: [Double] = []
        unit.reserveCapacity(acCount)
        for i in 0..<acCount {
            let byte: UInt8 = hash[acStart + i / 2]
            let shift: UInt8 = UInt8((i & 1) * 4)
            let nibble: UInt8 = (byte >> shift) & 15
            unit.append(Double(nibble) / 7.5 - 1)
        }
        let pStart = lTerms.count
        let qStart = pStart + pqTerms.count
        let aStart = qStart + pqTerms.count
        let lAC = (0..<pStart).map { unit[$0] * header.lScale }
        let pAC = (pStart..<qStart).map { unit[$0] * header.pScale * 1.25 }
        let qAC = (qStart..<aStart).map { unit[$0] * header.qScale * 1.25 }
        let aAC = (aStart..<acCount).map { unit[$0] * header.aScale }

        let side = Double(maxSide)
        let width = max(1, Int((ratio > 1 ? side : side * ratio).rounded()))
        let height = max(1, Int((ratio > 1 ? side / ratio : side).rounded()))

        // Cosine tables per column and per row, enough for every channel's terms.
        let nx = max(header.lx, header.hasAlpha ? 5 : 3)
        let ny = max(header.ly, header.hasAlpha ? 5 : 3)
        let fx: [Double] = (0..<width * nx).map { k in
            cos(Double.pi / Double(width) * (Double(k / nx) + 0.5) * Double(k % nx))
        }
        let fy: [Double] = (0..<height * ny).map { k in
            cos(Double.pi / Double(height) * (Double(k / ny) + 0.5) * Double(k % ny))
        }

        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                // Every AC term counts twice, as in the reference decoder.
                func basis(_ term: (cx: Int, cy: Int)) -> Double {
                    fx[x * nx + term.cx] * fy[y * ny + term.cy] * 2
                }
                var l = header.lDC, p = header.pDC, q = header.qDC, a = header.aDC
                for (j, term) in lTerms.enumerated() {
                    l += lAC[j] * basis(term)
                }
                for (j, term) in pqTerms.enumerated() {
                    let f = basis(term)
                    p += pAC[j] * f
                    q += qAC[j] * f
                }
                for (j, term) in aTerms.enumerated() {
                    a += aAC[j] * basis(term)
                }
                let colour = rgb(l: l, p: p, q: q)
                let i = (y * width + x) * 4
                rgba[i] = byte(colour.r)
                rgba[i + 1] = byte(colour.g)
                rgba[i + 2] = byte(colour.b)
                rgba[i + 3] = byte(a)
            }
        }
        return (width, height, rgba)
    }

    /// The average colour the hash holds, RGBA components in 0...1.
    public static func averageColor(_ hash: [UInt8]) -> (r: Double, g: Double, b: Double, a: Double)? {
        guard let header = Header(hash) else { return nil }
        let colour = rgb(l: header.lDC, p: header.pDC, q: header.qDC)
        return (r: clamp(colour.r), g: clamp(colour.g), b: clamp(colour.b), a: header.aDC)
    }

    /// The approximate aspect ratio (width / height) the hash holds.
    ///
    /// Only the ratio of the L term counts survives, e.g. 7/4 = 1.75 for a 2:1 opaque image.
    public static func approximateAspectRatio(_ hash: [UInt8]) -> Double? {
        guard hash.count >= 5 else { return nil }
        let hasAlpha = hash[2] & 0x80 != 0
        let isLandscape = hash[4] & 0x80 != 0
        let count = Double(hash[3] & 7)
        guard count > 0 else { return nil }  // encoders write at least 1
        let longSide = hasAlpha ? 5.0 : 7.0
        return isLandscape ? longSide / count : count / longSide
    }

    /// The constants: 5 bytes, 6 with alpha.
    private struct Header {
        let lDC, pDC, qDC, lScale, pScale, qScale, aDC, aScale: Double
        let hasAlpha: Bool
        /// L terms across and down; the longer side's count is implied by hasAlpha.
        let lx, ly: Int

        init?(_ hash: [UInt8]) {
            guard hash.count >= 5 else { return nil }
            let header24 = Int(hash[0]) | (Int(hash[1]) << 8) | (Int(hash[2]) << 16)
            let header16 = Int(hash[3]) | (Int(hash[4]) << 8)
            let alpha = header24 >> 23 != 0
            guard !alpha || hash.count >= 6 else { return nil }
            hasAlpha = alpha
            lDC = Double(header24 & 63) / 63
            pDC = Double((header24 >> 6) & 63) / 31.5 - 1
            qDC = Double((header24 >> 12) & 63) / 31.5 - 1
            lScale = Double((header24 >> 18) & 31) / 31
            pScale = Double((header16 >> 3) & 63) / 63
            qScale = Double((header16 >> 9) & 63) / 63
            aDC = alpha ? Double(hash[5] & 15) / 15 : 1
            aScale = alpha ? Double(hash[5] >> 4) / 15 : 0
            let isLandscape = header16 >> 15 != 0
            let longSide = alpha ? 5 : 7
            lx = max(3, isLandscape ? longSide : header16 & 7)
            ly = max(3, isLandscape ? header16 & 7 : longSide)
        }
    }

    /// LPQ back to RGB, inverting l = (r + g + b) / 3, p = (r + g) / 2 - b, q = r - g.
    private static func rgb(l: Double, p: Double, q: Double) -> (r: Double, g: Double, b: Double) {
        let b = l - 2.0 / 3.0 * p
        let r = (3 * l - b + q) / 2
        return (r: r, g: r - q, b: b)
    }

    private static func clamp(_ value: Double) -> Double {
        max(0, min(1, value))
    }

    private static func byte(_ value: Double) -> UInt8 {
        guard value > 0 else { return 0 }  // also catches NaN
        return UInt8((255 * min(1, value)).rounded())
    }
}
