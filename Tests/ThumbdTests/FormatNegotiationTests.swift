import Imaging
import Testing
import Thumbd
import ThumbdCore
import ThumbdProtocol

@Suite struct FormatNegotiationTests {
    @Test(arguments: [
        ("image/avif,image/webp,image/apng,image/*,*/*;q=0.8", false, OutputFormat.avif),
        ("image/webp,*/*", false, .webp),
        ("IMAGE/AVIF", false, .avif),
        ("image/avif;q=0, image/webp", false, .webp),
        ("image/*", false, .jpeg),
        ("image/*, image/avif;q=0", false, .jpeg),
        ("image/webp;q=0.5, image/avif;q=0.1", false, .avif),
        ("image/png,image/jpeg", false, .jpeg),
        ("image/png,image/jpeg", true, .png),
        ("", false, .jpeg),
        ("*/*", true, .png),
        ("image/webp;q=0,image/avif;q=0,*/*", false, .jpeg),
    ])
    func choosesTheBestAllowedFormat(_ accept: String, _ alpha: Bool, _ expected: OutputFormat) {
        #expect(FormatNegotiation.choose(accept: accept, hasAlpha: alpha) == expected)
    }
}
