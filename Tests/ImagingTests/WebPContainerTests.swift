import Imaging
import Testing

@Suite struct WebPContainerTests {
    func chunk(_ name: String, _ data: [UInt8]) -> [UInt8] {
        let n = data.count
        return Array(name.utf8) + [UInt8(n & 255), UInt8(n >> 8 & 255), UInt8(n >> 16 & 255), UInt8(n >> 24 & 255)] + data
            + (n % 2 == 1 ? [0] : [])
    }

    func riff(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.flatMap { $0 }
        let n = body.count
        return Array("RIFF".utf8) + [UInt8(n & 255), UInt8(n >> 8 & 255), UInt8(n >> 16 & 255), UInt8(n >> 24 & 255)] + body
    }

    @Test func dropsMetadataChunksAndFlags() {
        let vp8x = chunk("VP8X", [0x2C, 0, 0, 0, 9, 0, 0, 9, 0, 0])  // ICC | EXIF | XMP... flags
        let input = riff([vp8x, chunk("ICCP", [1, 2, 3]), chunk("VP8 ", [7, 7, 7, 7]), chunk("EXIF", [4, 5]), chunk("XMP ", [6])])
        let output = WebPContainer.removingMetadata(input)
        let expected = riff([chunk("VP8X", [0x00, 0, 0, 0, 9, 0, 0, 9, 0, 0]), chunk("VP8 ", [7, 7, 7, 7])])
        #expect(output == expected)
    }

    @Test func leavesOtherBytesAlone() {
        let plain = riff([chunk("VP8L", [1, 2, 3, 4, 5])])
        #expect(WebPContainer.removingMetadata(plain) == plain)
        let notWebP: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        #expect(WebPContainer.removingMetadata(notWebP) == notWebP)
        let truncated = Array(riff([chunk("VP8 ", [1, 2, 3, 4, 5, 6])]).dropLast(3))
        #expect(WebPContainer.removingMetadata(truncated) == truncated)
    }
}
