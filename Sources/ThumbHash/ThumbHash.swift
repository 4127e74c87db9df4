#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ThumbHash placeholders (Evan Wallace's format): an image's average colour, aspect ratio and
/// low-frequency DCT terms of its L (luminance), P (yellow-blue), Q (red-green) and A (alpha)
/// channels, in about 25 bytes. Byte-compatible with the published reference encoders/decoders.
///
/// Layout: 24 bits `l_dc:6 p_dc:6 q_dc:6 l_scale:5 has_alpha:1`, then 16 bits
/// `l_count:3 p_scale:6 q_scale:6 is_landscape:1` (both little-endian, low bits first), then with
/// alpha one byte `a_dc:4 a_scale:4`, then the AC terms of L, P, Q (and A), 4 bits each, low
/// nibble first.
public enum ThumbHash {
    /// The hash of an image given as RGBA8 pixels, row by row; width and height at most 100.
    ///
    /// Traps unless `1...100` holds both sides and `rgba` holds `width * height * 4` bytes: the
    /// caller scales the image down first (larger inputs only cost time, the hash keeps 7x7 terms).
    public static func encode(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        precondition((1...100).contains(width) && (1...100).contains(height),
                     "ThumbHash encodes images of 1...100 pixels a side, not \(width)x\(height)")
        let count = width * height
        precondition(rgba.count >= count * 4, "rgba holds fewer than width * height * 4 bytes")

        // The average colour, weighted by alpha so transparent pixels don't drag it to black.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            avgR += alpha / 255 * Double(rgba[4 * i])
            avgG += alpha / 255 * Double(rgba[4 * i + 1])
            avgB += alpha / 255 * Double(rgba[4 * i + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(count)
        let lLimit = hasAlpha ? 5 : 7  // fewer luminance terms leave room for the alpha ones
        let longest = Double(max(width, height))
        let lx = max(1, Int((Double(lLimit * width) / longest).rounded()))
        let ly = max(1, Int((Double(lLimit * height) / longest).rounded()))

        // RGBA to LPQA, compositing each pixel over the average colour.
        var l = [Double](repeating: 0, count: count)
        var p = l, q = l, a = l
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[4 * i])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        let lChannel = encodeChannel(l, width: width, height: height, nx: max(3, lx), ny: max(3, ly))
        let pChannel = encodeChannel(p, width: width, height: height, nx: 3, ny: 3)
        let qChannel = encodeChannel(q, width: width, height: height, nx: 3, ny: 3)

        let isLandscape = width > height
        // Each field is clamped to its width, so one can never spill into the next.
        let lDC: Int = quantize(63 * lChannel.dc, max: 63)
        let pDC: Int = quantize(31.5 + 31.5 * pChannel.dc, max: 63)
        let qDC: Int = quantize(31.5 + 31.5 * qChannel.dc, max: 63)
        let lScale: Int = quantize(31 * lChannel.scale, max: 31)
        let header24: Int = lDC | (pDC << 6) | (qDC << 12) | (lScale << 18) | (hasAlpha ? 1 << 23 : 0)
        // Only the shorter side's count is stored: the longer side's is always lLimit.
        let lCount: Int = isLandscape ? ly : lx
        let pScale: Int = quantize(63 * pChannel.scale, max: 63)
        let qScale: Int = quantize(63 * qChannel.scale, max: 63)
        let header16: Int = lCount | (pScale << 3) | (qScale << 9) | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 0xFF), UInt8((header24 >> 8) & 0xFF), UInt8(header24 >> 16),
            UInt8(header16 & 0xFF), UInt8(header16 >> 8),
        ]

        var channels = [lChannel, pChannel, qChannel]
        if hasAlpha {
            let aChannel = encodeChannel(a, width: width, height: height, nx: 5, ny: 5)
            let aDC: Int = quantize(15 * aChannel.dc, max: 15)
            let aScale: Int = quantize(15 * aChannel.scale, max: 15)
            hash.append(UInt8(aDC | (aScale << 4)))
            channels.append(aChannel)
        }

        var nibbles = 0
        for channel in channels {
            for term in channel.ac {
                let nibble = UInt8(quantize(15 * term, max: 15))
                if nibbles & 1 == 0 {
                    hash.append(nibble)
                } else {
                    hash[hash.count - 1] |= nibble << 4
                }
                nibbles += 1
            }
        }
        return hash
    }

    /// The DC term, the AC terms normalised into 0...1 (0.5 is zero) and their scale.
    private struct Channel {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
    }

    private static func encodeChannel(_ values: [Double], width w: Int, height h: Int, nx: Int, ny: Int) -> Channel {
        var channel = Channel()
        var fx = [Double](repeating: 0, count: w)
        // The DC term first, then the AC terms in hash order.
        let all: [(cx: Int, cy: Int)] = [(cx: 0, cy: 0)] + terms(nx: nx, ny: ny)
        for (cx, cy) in all {
            for x in 0..<w {
                fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5))
            }
            var f = 0.0
            for y in 0..<h {
                let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                for x in 0..<w {
                    f += values[x + y * w] * fx[x] * fy
                }
            }
            f /= Double(w * h)
            if cx == 0 && cy == 0 {
                channel.dc = f
            } else {
                channel.ac.append(f)
                channel.scale = max(channel.scale, abs(f))
            }
        }
        // A zero scale (a flat channel) leaves the terms at their raw value, 0, as the reference does.
        if channel.scale > 0 {
            for i in channel.ac.indices {
                channel.ac[i] = 0.5 + 0.5 / channel.scale * channel.ac[i]
            }
        }
        return channel
    }

    /// The AC terms of an nx by ny channel in hash order: row by row, keeping only the triangle
    /// `cx * ny < nx * (ny - cy)` (high frequencies in both directions matter least), without (0, 0).
    static func terms(nx: Int, ny: Int) -> [(cx: Int, cy: Int)] {
        var result: [(cx: Int, cy: Int)] = []
        for cy in 0..<max(0, ny) {
            var cx = cy == 0 ? 1 : 0
            while cx * ny < nx * (ny - cy) {
                result.append((cx: cx, cy: cy))
                cx += 1
            }
        }
        return result
    }

    /// Rounds half up like JavaScript's Math.round (all values here are non-negative), clamped to
    /// 0...limit against floating-point slop.
    private static func quantize(_ value: Double, max limit: Int) -> Int {
        guard value > 0 else { return 0 }  // also catches NaN
        return min(limit, Int(min(value, Double(limit)).rounded()))
    }
}
