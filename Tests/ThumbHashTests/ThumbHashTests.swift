import Testing
import TestSupport
import ThumbHash

/// One RGBA8 colour, as a test argument.
struct Colour: Sendable, CustomStringConvertible {
    let r, g, b, a: UInt8
    var pixel: [UInt8] { [r, g, b, a] }
    var description: String { "rgba(\(r), \(g), \(b), \(a))" }

    static let flat: [Colour] = [
        Colour(r: 255, g: 0, b: 0, a: 255), Colour(r: 0, g: 255, b: 0, a: 255),
        Colour(r: 0, g: 0, b: 255, a: 255), Colour(r: 128, g: 128, b: 128, a: 255),
        Colour(r: 255, g: 128, b: 0, a: 255), Colour(r: 255, g: 255, b: 255, a: 255),
        Colour(r: 0, g: 0, b: 0, a: 255), Colour(r: 30, g: 200, b: 120, a: 255),
        // Translucent: the colour survives, the alpha goes to the A channel.
        Colour(r: 255, g: 0, b: 0, a: 128), Colour(r: 0, g: 0, b: 255, a: 64),
    ]
}


/// An RGBA8 image, row by row, from a function of the pixel's position.
func image(width: Int, height: Int, _ pixel: (_ x: Int, _ y: Int) -> [UInt8]) -> [UInt8] {
    var rgba: [UInt8] = []
    rgba.reserveCapacity(width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            rgba += pixel(x, y)
        }
    }
    return rgba
}

typealias Decoded = (width: Int, height: Int, rgba: [UInt8])

/// Whether a hash decodes (the decoded tuple is not Equatable, so `== nil` is kept out of #expect).
func decodes(_ hash: [UInt8], maxSide: Int = 32) -> Bool {
    ThumbHash.decode(hash, maxSide: maxSide) != nil
}

/// The mean RGBA of a rectangle of a decoded image, each component in 0...1.
func mean(_ decoded: Decoded, x: Range<Int>, y: Range<Int>) -> [Double] {
    var sum = [0.0, 0.0, 0.0, 0.0]
    for py in y {
        for px in x {
            for c in 0..<4 {
                sum[c] += Double(decoded.rgba[(py * decoded.width + px) * 4 + c])
            }
        }
    }
    return sum.map { $0 / Double(x.count * y.count) / 255 }
}

@Suite struct ThumbHashTests {
    @Test(arguments: Colour.flat)
    func flatColourRoundTrips(_ colour: Colour) throws {
        let hash = ThumbHash.encode(width: 10, height: 10, rgba: image(width: 10, height: 10) { _, _ in colour.pixel })
        #expect(hash.count <= 25)

        let average = try #require(ThumbHash.averageColor(hash))
        #expect(abs(average.r - Double(colour.r) / 255) < 0.05)
        #expect(abs(average.g - Double(colour.g) / 255) < 0.05)
        #expect(abs(average.b - Double(colour.b) / 255) < 0.05)
        #expect(abs(average.a - Double(colour.a) / 255) < 0.05)

        // A flat image has no AC energy: every decoded pixel is the average colour.
        let decoded = try #require(ThumbHash.decode(hash))
        #expect(decoded.width == 32 && decoded.height == 32)
        #expect(decoded.rgba.count == 32 * 32 * 4)
        for (i, value) in decoded.rgba.enumerated() {
            let expected = colour.pixel[i % 4]
            if abs(Int(value) - Int(expected)) > 16 {
                Issue.record("pixel \(i / 4) component \(i % 4): \(value), expected about \(expected)")
                break
            }
        }
    }

    @Test func topRedBottomBlueKeepsItsBands() throws {
        let rgba = image(width: 64, height: 64) { _, y in y < 32 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        let hash = ThumbHash.encode(width: 64, height: 64, rgba: rgba)

        let average = try #require(ThumbHash.averageColor(hash))
        #expect(abs(average.r - 0.5) < 0.05 && average.g < 0.05 && abs(average.b - 0.5) < 0.05)

        let decoded = try #require(ThumbHash.decode(hash))
        let top = mean(decoded, x: 0..<decoded.width, y: 0..<decoded.height / 4)
        let bottom = mean(decoded, x: 0..<decoded.width, y: decoded.height * 3 / 4..<decoded.height)
        #expect(top[0] > 0.8 && top[2] < 0.2, "top rows should be red: \(top)")
        #expect(bottom[2] > 0.8 && bottom[0] < 0.2, "bottom rows should be blue: \(bottom)")
    }

    @Test func leftRedRightBlueKeepsItsBands() throws {
        let rgba = image(width: 64, height: 64) { x, _ in x < 32 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        let decoded = try #require(ThumbHash.decode(ThumbHash.encode(width: 64, height: 64, rgba: rgba)))
        let left = mean(decoded, x: 0..<decoded.width / 4, y: 0..<decoded.height)
        let right = mean(decoded, x: decoded.width * 3 / 4..<decoded.width, y: 0..<decoded.height)
        #expect(left[0] > 0.8 && left[2] < 0.2, "left columns should be red: \(left)")
        #expect(right[2] > 0.8 && right[0] < 0.2, "right columns should be blue: \(right)")
    }

    @Test func landscapeBandsKeepTheirLayoutAndShape() throws {
        let rgba = image(width: 100, height: 50) { _, y in y < 25 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        let decoded = try #require(ThumbHash.decode(ThumbHash.encode(width: 100, height: 50, rgba: rgba)))
        #expect(decoded.width == 32 && decoded.height == 18)  // 32 / (7/4) = 18.3
        let top = mean(decoded, x: 0..<decoded.width, y: 0..<decoded.height / 4)
        let bottom = mean(decoded, x: 0..<decoded.width, y: decoded.height * 3 / 4..<decoded.height)
        #expect(top[0] > 0.8 && top[2] < 0.2, "top rows should be red: \(top)")
        #expect(bottom[2] > 0.8 && bottom[0] < 0.2, "bottom rows should be blue: \(bottom)")
    }

    @Test func aspectRatioIsApproximated() throws {
        // Only the ratio of L term counts survives: 7 : round(3.5) = 4 for 2:1 opaque, 5 : 3 with alpha.
        let cases: [(width: Int, height: Int, alpha: UInt8, ratio: Double, size: (Int, Int))] = [
            (100, 50, 255, 7.0 / 4.0, (32, 18)),
            (50, 100, 255, 4.0 / 7.0, (18, 32)),
            (60, 60, 255, 1, (32, 32)),
            (100, 50, 100, 5.0 / 3.0, (32, 19)),
            (100, 10, 255, 7, (32, 5)),
        ]
        for c in cases {
            let hash = ThumbHash.encode(width: c.width, height: c.height,
                                        rgba: image(width: c.width, height: c.height) { x, _ in [UInt8(x * 2), 90, 40, c.alpha] })
            let ratio = try #require(ThumbHash.approximateAspectRatio(hash))
            #expect(abs(ratio - c.ratio) < 1e-9, "\(c.width)x\(c.height)")
            // Within 25% of the true ratio for the 2:1, 1:2 and 1:1 shapes.
            if c.width * 5 >= c.height && c.height * 5 >= c.width {
                let truth = Double(c.width) / Double(c.height)
                #expect(abs(ratio - truth) / truth < 0.25, "\(c.width)x\(c.height)")
            }
            let decoded = try #require(ThumbHash.decode(hash))
            #expect(decoded.width == c.size.0 && decoded.height == c.size.1, "\(c.width)x\(c.height)")
        }
    }

    @Test func transparentHalfKeepsLowAlpha() throws {
        let rgba = image(width: 64, height: 64) { x, _ in x < 32 ? [0, 255, 0, 255] : [0, 0, 0, 0] }
        let hash = ThumbHash.encode(width: 64, height: 64, rgba: rgba)
        #expect(hash[2] & 0x80 != 0)  // has_alpha

        // The transparent pixels don't darken the average: it is weighted by alpha.
        let average = try #require(ThumbHash.averageColor(hash))
        #expect(average.r < 0.05 && average.g > 0.9 && average.b < 0.05)
        #expect(abs(average.a - 0.5) < 0.1)

        let decoded = try #require(ThumbHash.decode(hash))
        let left = mean(decoded, x: 0..<decoded.width / 4, y: 0..<decoded.height)
        let right = mean(decoded, x: decoded.width * 3 / 4..<decoded.width, y: 0..<decoded.height)
        #expect(left[3] > 0.85, "opaque side: \(left)")
        #expect(right[3] < 0.15, "transparent side: \(right)")
        #expect(left[1] > 0.9, "opaque side should be green: \(left)")
    }

    @Test func transparentTopKeepsLowAlpha() throws {
        let rgba = image(width: 40, height: 40) { _, y in y < 20 ? [0, 0, 0, 0] : [0, 0, 255, 255] }
        let decoded = try #require(ThumbHash.decode(ThumbHash.encode(width: 40, height: 40, rgba: rgba)))
        let top = mean(decoded, x: 0..<decoded.width, y: 0..<decoded.height / 4)
        let bottom = mean(decoded, x: 0..<decoded.width, y: decoded.height * 3 / 4..<decoded.height)
        #expect(top[3] < 0.15, "transparent top: \(top)")
        #expect(bottom[3] > 0.85 && bottom[2] > 0.9, "opaque blue bottom: \(bottom)")
    }

    @Test func fullyTransparentImageDecodesFullyTransparent() throws {
        let hash = ThumbHash.encode(width: 8, height: 8, rgba: [UInt8](repeating: 0, count: 8 * 8 * 4))
        let decoded = try #require(ThumbHash.decode(hash))
        #expect(stride(from: 3, to: decoded.rgba.count, by: 4).allSatisfy { decoded.rgba[$0] == 0 })
        #expect(ThumbHash.averageColor(hash)?.a == 0)
    }

    /// Golden values, worked by hand (and they must match any ThumbHash encoder).
    ///
    /// Flat opaque black 8x8: alpha sums to 64 = w*h, so has_alpha = 0, the L limit is 7 and
    /// lx = ly = max(1, round(7 * 8 / 8)) = 7; 8x8 is not landscape, so l_count = lx = 7. Every pixel
    /// has L = P = Q = 0, so every DCT sum is exactly 0 (0 * cos is +-0, 0 + -0 = +0): all DC terms
    /// and scales are 0, and with a zero scale the AC terms stay 0, i.e. nibbles round(15 * 0) = 0.
    ///   header24 = round(63*0) | round(31.5 + 31.5*0) << 6 | round(31.5) << 12 | round(31*0) << 18 | 0 << 23
    ///            = 32 << 6 | 32 << 12 = 0x000800 | 0x020000 = 0x020800  -> 00 08 02 (low byte first;
    ///              31.5 rounds half up to 32, as JavaScript's Math.round does)
    ///   header16 = 7 | 0 << 3 | 0 << 9 | 0 << 15 = 0x0007             -> 07 00
    ///   AC: L keeps cx < 7 - cy (cx * 7 < 7 * (7 - cy)): 7+6+5+4+3+2+1 = 28 terms less the DC = 27,
    ///   P and Q keep cx < 3 - cy: 3+2+1 - 1 = 5 each; 37 nibbles -> 19 zero bytes. 24 bytes in all.
    ///
    /// Fully transparent 8x8: the alpha sum is 0, so the average stays (0, 0, 0) and every pixel
    /// composites to L = P = Q = A = 0 again; has_alpha = 1 (0 < 64), the L limit is 5, l_count = 5.
    ///   header24 = 0x020800 | 1 << 23 = 0x820800 -> 00 08 82; header16 = 5 -> 05 00;
    ///   alpha byte = round(15*0) | round(15*0) << 4 = 00;
    ///   AC: L 5x5 (5+4+3+2+1 - 1 = 14) + P 5 + Q 5 + A 5x5 14 = 38 nibbles -> 19 zero bytes. 25 bytes.
    ///
    /// Flat opaque black 100x50: landscape, lx = 7, ly = max(1, round(7 * 50 / 100)) = round(3.5) = 4,
    /// and l_count holds ly with bit 15 set: header16 = 4 | 1 << 15 = 0x8004 -> 04 80. L is 7x4:
    /// cx * 4 < 7 * (4 - cy) keeps 7+6+4+2 = 19 terms, 18 AC; + 5 + 5 = 28 nibbles -> 14 bytes. 19 bytes.
    ///
    /// Flat opaque red 8x8, header only (its AC terms are rounding noise around 0 that the
    /// normalisation by a near-zero scale blows up, so only the first 5 bytes are well defined):
    /// L = 1/3, P = (1 + 0) / 2 - 0 = 1/2, Q = 1 - 0 = 1, scales round(31 * ~1e-17) = 0.
    ///   header24 = round(63/3) = 21 | round(31.5 + 15.75) = 47 << 6 | round(63) = 63 << 12
    ///            = 0x15 | 0xBC0 | 0x3F000 = 0x03FBD5 -> D5 FB 03; header16 = 7 -> 07 00.
    @Test func goldenHashes() {
        let black = ThumbHash.encode(width: 8, height: 8, rgba: image(width: 8, height: 8) { _, _ in [0, 0, 0, 255] })
        #expect(black == [0x00, 0x08, 0x02, 0x07, 0x00] + [UInt8](repeating: 0, count: 19))

        let clear = ThumbHash.encode(width: 8, height: 8, rgba: image(width: 8, height: 8) { _, _ in [0, 0, 0, 0] })
        #expect(clear == [0x00, 0x08, 0x82, 0x05, 0x00, 0x00] + [UInt8](repeating: 0, count: 19))

        let wide = ThumbHash.encode(width: 100, height: 50, rgba: image(width: 100, height: 50) { _, _ in [0, 0, 0, 255] })
        #expect(wide == [0x00, 0x08, 0x02, 0x04, 0x80] + [UInt8](repeating: 0, count: 14))

        let red = ThumbHash.encode(width: 8, height: 8, rgba: image(width: 8, height: 8) { _, _ in [255, 0, 0, 255] })
        #expect(red.count == 24)
        #expect(Array(red.prefix(5)) == [0xD5, 0xFB, 0x03, 0x07, 0x00])
    }

    @Test func goldenHashDecodes() throws {
        // Black: L = 0, P = Q = 32/31.5 - 1 = 0.016, so r = 0.013 -> 3, g and b clamp to 0.
        let hash: [UInt8] = [0x00, 0x08, 0x02, 0x07, 0x00] + [UInt8](repeating: 0, count: 19)
        let decoded = try #require(ThumbHash.decode(hash))
        #expect(decoded.width == 32 && decoded.height == 32)
        #expect(decoded.rgba.enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == 255 : $0.element <= 5 })
        #expect(ThumbHash.approximateAspectRatio(hash) == 1)
        // Every strict prefix is too short for the terms the header announces.
        for length in 0..<hash.count {
            #expect(!decodes(Array(hash.prefix(length))), "prefix of \(length) bytes")
        }
    }

    @Test func encodingIsDeterministic() {
        var rng = SplitMix64(seed: 42)
        for (width, height) in [(100, 100), (37, 81), (1, 1), (100, 3)] {
            let rgba = (0..<width * height * 4).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let first = ThumbHash.encode(width: width, height: height, rgba: rgba)
            let second = ThumbHash.encode(width: width, height: height, rgba: rgba)
            #expect(first == second)
            #expect((5...25).contains(first.count))
            #expect(decodes(first))
        }
    }

    @Test func decodingArbitraryBytesNeverCrashes() {
        var rng = SplitMix64(seed: 0x7468_756D_6264)
        for _ in 0..<500 {
            let length = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let maxSide = Int.random(in: 1...32, using: &rng)
            if let decoded = ThumbHash.decode(bytes, maxSide: maxSide) {
                #expect(decoded.width >= 1 && decoded.height >= 1)
                #expect(max(decoded.width, decoded.height) == maxSide)
                #expect(decoded.rgba.count == decoded.width * decoded.height * 4)
            }
            if let average = ThumbHash.averageColor(bytes) {
                #expect([average.r, average.g, average.b, average.a].allSatisfy { (0...1).contains($0) })
            }
            if let ratio = ThumbHash.approximateAspectRatio(bytes) {
                #expect(ratio >= 1.0 / 7 && ratio <= 7)
            }
        }
        #expect(!decodes([]))
        #expect(!decodes([0x00, 0x08, 0x02, 0x07]))
        #expect(!decodes([0x00, 0x08, 0x02, 0x07, 0x00] + [UInt8](repeating: 0, count: 19), maxSide: 0))
    }
}
