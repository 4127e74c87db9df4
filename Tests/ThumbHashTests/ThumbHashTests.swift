import Testing
import ThumbHash

@Suite struct ThumbHashPlaceholderTests {
    @Test func exists() { #expect(Bool(true)) }
}
