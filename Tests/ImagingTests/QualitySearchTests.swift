import Foundation
@testable import Imaging
import PropertyBased
import Testing

/// The search behind `q=auto` against made-up encoders whose distance falls with the quality.
@Suite struct QualitySearchTests {
    /// An encoder whose distance is `scale * e^(-rate * q)`, perturbed by `wobble` per quality,
    /// counting its calls; the bytes are the quality, so the choice can be read back.
    final class Encoder: @unchecked Sendable {
        let scale: Double, rate: Double, wobble: [Double]
        var calls: [Int] = []

        init(scale: Double, rate: Double, wobble: [Double] = []) {
            self.scale = scale
            self.rate = rate
            self.wobble = wobble
        }

        func distance(_ quality: Int) -> Double {
            scale * exp(-rate * Double(quality)) * (wobble.isEmpty ? 1 : wobble[quality % wobble.count])
        }

        func trial(_ quality: Int) -> QualitySearch.Trial {
            calls.append(quality)
            return QualitySearch.Trial(quality: quality, distance: distance(quality), bytes: [UInt8(quality)])
        }
    }

    /// Within `close` of the lowest quality that meets the target, from a start far above it
    /// and far below it, in a few encodings.
    @Test(arguments: [(74, 4), (35, 5)])
    func itEndsNearTheLowestQualityWithinTheTarget(start: Int, encodings: Int) {
        let encoder = Encoder(scale: 0.2, rate: 0.06)
        let search = QualitySearch(target: 0.004, floor: 30, ceiling: 85, encodes: 8, start: start)
        let (bytes, choice) = search.run(encoder.trial)
        let lowest = (30...85).first { encoder.distance($0) <= 0.004 }!
        #expect((lowest...(lowest + QualitySearch.close)).contains(choice.quality) && bytes == [UInt8(choice.quality)] && choice.met,
                "\(choice) for \(lowest)")
        #expect(choice.encodes == encoder.calls.count && encoder.calls.count <= encodings, "\(encoder.calls)")
    }

    /// A guess from one measurement and the usual slope goes at most `reach` from it.
    @Test func aGuessFromOneMeasurementStaysWithinReach() {
        let encoder = Encoder(scale: 0.0001, rate: 0.001)
        _ = QualitySearch(target: 0.004, floor: 1, ceiling: 100, encodes: 2, start: 80).run(encoder.trial)
        #expect(encoder.calls == [80, 80 - QualitySearch.reach])
    }

    @Test func aTargetTheCeilingMissesGivesTheCeilingSaidSo() {
        let encoder = Encoder(scale: 1, rate: 0.01)
        let (bytes, choice) = QualitySearch(target: 0.001, floor: 30, ceiling: 85, encodes: 4, start: 74).run(encoder.trial)
        #expect(choice.quality == 85 && bytes == [85] && !choice.met && encoder.calls.contains(85))
    }

    @Test func aTargetTheFloorMeetsGivesTheFloor() {
        let encoder = Encoder(scale: 0.001, rate: 0.01)
        let (_, choice) = QualitySearch(target: 0.004, floor: 30, ceiling: 85, encodes: 4, start: 74).run(encoder.trial)
        #expect(choice.quality == 30 && choice.met && encoder.calls.count <= 3, "\(encoder.calls)")
    }

    /// Whatever the encoder, the search stays within its bounds and budget, answers the bytes
    /// of the quality it names, never one over the target while one within it was seen, and
    /// gives the same answer twice.
    @Test func itKeepsItsBoundsForAnyEncoder() async {
        await propertyCheck(count: 400, input: Gen.int(in: 1...100), Gen.int(in: 1...100), Gen.int(in: 1...100), Gen.int(in: 2...8),
                            Gen.int(in: 1...1000)) { a, b, start, encodes, shape in
            let floor = min(a, b), ceiling = max(a, b)
            let wobble = (0..<7).map { 1 + Double(($0 * shape) % 13) / 40 }
            let encoder = Encoder(scale: Double(shape) / 100, rate: Double(shape % 9 + 1) / 100, wobble: wobble)
            let target = Double(shape % 17 + 1) / 2000
            let search = QualitySearch(target: target, floor: floor, ceiling: ceiling, encodes: encodes, start: start)
            let (bytes, choice) = search.run(encoder.trial)
            #expect((floor...ceiling).contains(choice.quality) && bytes == [UInt8(choice.quality)])
            #expect(encoder.calls.count <= encodes && choice.encodes == encoder.calls.count)
            #expect(Set(encoder.calls).count == encoder.calls.count, "tried twice: \(encoder.calls)")
            #expect(encoder.calls.allSatisfy { (floor...ceiling).contains($0) })
            let within = encoder.calls.filter { encoder.distance($0) <= target }
            #expect(choice.met == !within.isEmpty)
            if let lowest = within.min() { #expect(choice.quality == lowest) } else { #expect(choice.quality == encoder.calls.max()) }
            let again = Encoder(scale: encoder.scale, rate: encoder.rate, wobble: wobble)
            #expect(search.run(again.trial).choice == choice && again.calls == encoder.calls)
        }
    }
}
