import Testing
import ThumbdKit

@Suite struct ThumbdKitPlaceholderTests {
    @Test func versionIsSet() { #expect(!ThumbdKit.version.isEmpty) }
}
