import Imaging
import Testing

@Suite struct ImageFormatTests {
    @Test func sniffsSignatures() {
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xDB]) == .jpeg)
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.sniff(Array("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat.sniff([0, 0, 0, 0x1C] + Array("ftypavif".utf8)) == .avif)
        #expect(ImageFormat.sniff([0, 0, 0, 0x18] + Array("ftypheic".utf8)) == .heic)
        #expect(ImageFormat.sniff([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .tiff)
        #expect(ImageFormat.sniff(Array("<html><body>".utf8)) == nil)
        #expect(ImageFormat.sniff([]) == nil)
        #expect(ImageFormat.sniff([0xFF, 0xD8]) == nil)
    }
}
