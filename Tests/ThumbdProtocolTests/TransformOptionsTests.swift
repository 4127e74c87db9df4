import Testing
import ThumbdProtocol

@Suite struct TransformOptionsTests {
    @Test func theAVIFEffortStaysOnlyOnAVIFAndOnlyWhenNotTheDefault() {
        #expect(TransformOptions(width: 10, format: .avif, avifEffort: 4).avifEffort == 4)
        #expect(TransformOptions(width: 10, format: .avif, avifEffort: OutputFormat.defaultAVIFEffort).avifEffort == nil)
        #expect(TransformOptions(width: 10, format: .webp, avifEffort: 4).avifEffort == nil)
        // An unsettled format keeps it until the format is known.
        var unsettled = TransformOptions(width: 10, avifEffort: 4)
        #expect(unsettled.avifEffort == 4)
        unsettled.format = .jpeg
        unsettled.normalize()
        #expect(unsettled.avifEffort == nil)
    }

    @Test func normalizationDropsWhatCannotMatter() {
        #expect(TransformOptions(width: 100, fit: .cover, crop: .top) == TransformOptions(width: 100))
        #expect(TransformOptions(width: 100, height: 100, fit: .contain, crop: .top) == TransformOptions(width: 100, height: 100))
        #expect(TransformOptions(width: 100, format: .png, quality: 30) == TransformOptions(width: 100, format: .png, quality: 90))
        #expect(TransformOptions(width: 100, format: .jpeg, quality: 30) != TransformOptions(width: 100, format: .jpeg, quality: 90))
    }
}
