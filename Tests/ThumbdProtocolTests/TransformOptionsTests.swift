import Testing
import ThumbdProtocol

@Suite struct TransformOptionsTests {
    @Test func normalizationDropsWhatCannotMatter() {
        #expect(TransformOptions(width: 100, fit: .cover, crop: .top) == TransformOptions(width: 100))
        #expect(TransformOptions(width: 100, height: 100, fit: .contain, crop: .top) == TransformOptions(width: 100, height: 100))
        #expect(TransformOptions(width: 100, format: .png, quality: 30) == TransformOptions(width: 100, format: .png, quality: 90))
        #expect(TransformOptions(width: 100, format: .jpeg, quality: 30) != TransformOptions(width: 100, format: .jpeg, quality: 90))
    }
}
