import Foundation
@testable import Imaging
import Testing
import TestSupport

/// The metric `q=auto` keeps within its target, against values a separate NumPy
/// implementation of the same definition gave (3-scale MS-SSIM on luma, x264's windows).
@Suite struct PerceptualDistanceTests {
    static func plane(_ width: Int, _ height: Int, _ value: (Int, Int) -> Int) -> LumaPlane {
        var pixels: [UInt8] = []
        for row in 0..<height { for column in 0..<width { pixels.append(UInt8(max(0, min(255, value(row, column))))) } }
        return LumaPlane(width: width, height: height, pixels: pixels)
    }

    @Test func itMatchesAnIndependentImplementation() {
        // Odd sizes: windows drop the last columns and rows, halving drops the odd one.
        let x = Self.plane(67, 53) { i, j in (i * 7 + j * 13) % 256 }
        let y = Self.plane(67, 53) { i, j in (i * 7 + j * 13) % 256 + (i * j) % 11 - 5 }
        #expect(abs(PerceptualDistance.distance(x, y) - 0.0004404815249209326) < 1e-12)
        let x2 = Self.plane(67, 53) { i, j in (i * 3 + j * 5) % 200 + 20 }
        let y2 = Self.plane(67, 53) { i, j in Int((Double((i * 3 + j * 5) % 200 + 20) * 0.9 + 10).rounded(.towardZero)) }
        #expect(abs(PerceptualDistance.distance(x2, y2) - 0.005492104611298232) < 1e-12)
    }

    @Test func theSamePixelsAreNoDistanceAndItIsSymmetric() {
        var random = SplitMix64(seed: 3)
        let x = Self.plane(120, 90) { _, _ in Int(random.next() % 256) }
        let y = Self.plane(120, 90) { i, j in Int(x.pixels[i * 120 + j]) + Int(random.next() % 9) - 4 }
        #expect(PerceptualDistance.distance(x, x) == 0)
        #expect(PerceptualDistance.distance(x, y) == PerceptualDistance.distance(y, x))
    }

    /// More noise is further; a plane too small for a window is one window.
    @Test func moreNoiseIsFurtherAtEverySize() {
        for (width, height) in [(3, 2), (9, 7), (40, 33), (200, 150)] {
            let base = Self.plane(width, height) { i, j in 100 + (i * 5 + j * 3) % 60 }
            var last = 0.0
            for amplitude in [2, 8, 24, 64] {
                var random = SplitMix64(seed: UInt64(amplitude))
                let noisy = Self.plane(width, height) { i, j in
                    Int(base.pixels[i * width + j]) + Int(random.next() % UInt64(2 * amplitude + 1)) - amplitude
                }
                let distance = PerceptualDistance.distance(base, noisy)
                #expect(distance > last && distance <= 1, "\(width)x\(height) ±\(amplitude): \(distance) after \(last)")
                last = distance
            }
        }
    }

    /// The luma of an image: Rec. 601 weights, rounded, the grey band of a grey image.
    @Test func lumaIsRec601() throws {
        let colour = try ImageSynthesis.image(width: 2, height: 1, bands: 3, pixels: [255, 0, 0, 10, 200, 30]).luma()
        #expect(colour == LumaPlane(width: 2, height: 1, pixels: [76, 124]))
        let grey = try ImageSynthesis.image(width: 2, height: 1, bands: 1, pixels: [7, 250]).luma()
        #expect(grey.pixels == [7, 250])
    }
}
