import HTTP
import PropertyBased
import Testing

@Suite struct RangeRequestTests {
    func resolve(_ field: String, _ length: UInt64) -> [Range<UInt64>]? {
        RangeRequest(parsing: field)?.resolve(length: length)
    }

    @Test func singleOpenAndSuffixRanges() {
        #expect(resolve("bytes=0-99", 1000) == [0..<100])
        #expect(resolve("bytes=500-", 1000) == [500..<1000])
        #expect(resolve("bytes=-100", 1000) == [900..<1000])
        #expect(resolve("bytes=990-2000", 1000) == [990..<1000])
        #expect(resolve("bytes=-5000", 1000) == [0..<1000])
        #expect(resolve("BYTES = 1-1", 10) == [1..<2])
    }

    @Test func unsatisfiableRangesResolveToNothing() {
        #expect(resolve("bytes=1000-", 1000) == [])
        #expect(resolve("bytes=1000-1001", 1000) == [])
        #expect(resolve("bytes=-0", 1000) == [])
        #expect(resolve("bytes=0-", 0) == [])
        #expect(resolve("bytes=99999999999999999999999-", 10) == [])
    }

    @Test func severalRangesKeepOrderUnlessTheyOverlap() {
        #expect(resolve("bytes=50-59, 0-9", 100) == [50..<60, 0..<10])
        #expect(resolve("bytes=0-9,5-19,30-39", 100) == [0..<20, 30..<40])
        #expect(resolve("bytes=0-9,10-19", 100) == [0..<20])
        #expect(resolve("bytes=0-9,,20-29", 100) == [0..<10, 20..<30])
        #expect(resolve("bytes=200-300,0-9", 100) == [0..<10])
    }

    @Test(arguments: ["bytes=", "bytes=a-b", "bytes=5-1", "bytes=--1", "items=0-1", "bytes 0-1", "bytes=1", "bytes=0-1-2", "bytes=-", "bytes=+1-2"])
    func malformedHeadersAreIgnored(_ field: String) {
        #expect(RangeRequest(parsing: field) == nil)
    }

    @Test func tooManyRangesAreIgnored() {
        let many = "bytes=" + (0..<65).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        #expect(RangeRequest(parsing: many) == nil)
    }

    static let cases = Generator<([RangeRequest.Spec], UInt64), Shrink.None<([RangeRequest.Spec], UInt64)>> { rng in
        let length = UInt64.random(in: 0...5000, using: &rng)
        let specs: [RangeRequest.Spec] = (0..<Int.random(in: 1...8, using: &rng)).map { _ in
            switch Int.random(in: 0...2, using: &rng) {
            case 0:
                let a = UInt64.random(in: 0...6000, using: &rng)
                return .from(a, through: a + UInt64.random(in: 0...3000, using: &rng))
            case 1: return .from(UInt64.random(in: 0...6000, using: &rng), through: nil)
            default: return .suffix(UInt64.random(in: 0...6000, using: &rng))
            }
        }
        return (specs, length)
    }

    @Test func resolvedRangesAreInBoundsDisjointAndCoverOnlyRequestedBytes() async {
        await propertyCheck(count: 1000, input: Self.cases) { specs, length in
            let ranges = RangeRequest(specs: specs).resolve(length: length)
            var requested = Set<UInt64>()
            for spec in specs {
                switch spec {
                case .from(let a, let b): if a < length { requested.formUnion(a...min(b ?? (length - 1), length - 1)) }
                case .suffix(let n): if n > 0 && length > 0 { requested.formUnion((length - min(n, length))..<length) }
                }
            }
            var covered = Set<UInt64>()
            for r in ranges {
                #expect(!r.isEmpty && r.upperBound <= length)
                #expect(covered.isDisjoint(with: r), "ranges overlap: \(ranges)")
                covered.formUnion(r)
            }
            #expect(covered == requested)
        }
    }
}
