import CVipsShim
import Foundation

/// Who made an image, as the image itself says: its EXIF Artist, else the creators of its XMP
/// packet (`dc:creator`, joined with ", "); empty when it says neither. Read from the header
/// without decoding pixels.
public enum ImageAuthor {
    public static func read(_ bytes: [UInt8]) -> String {
        Vips.start()
        var artist: UnsafeMutablePointer<CChar>?
        var xmp: UnsafeMutablePointer<CChar>?
        var err: UnsafeMutablePointer<CChar>?
        let rc = bytes.withUnsafeBytes { tv_read_credits($0.baseAddress, $0.count, &artist, &xmp, &err) }
        defer {
            tv_free(artist)
            tv_free(xmp)
        }
        if rc != 0 { _ = takeMessage(err) }
        if let artist, let name = Self.artist(fromVipsText: String(cString: artist)), !name.isEmpty { return name }
        if let xmp { return creators(inXMP: String(cString: xmp)).joined(separator: ", ") }
        return ""
    }

    /// The Artist out of libvips' text of an EXIF string field, which is the value followed by
    /// a description of it: `Ann Lee (Ann Lee, ASCII, 8 components, 8 bytes)`.
    static func artist(fromVipsText text: String) -> String? {
        // EXIF pads strings with spaces and NULs.
        let trimmed = { (s: Substring) in s.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0"))) }
        guard text.hasSuffix(" bytes)"), let described = text.range(of: ", ASCII, ", options: .backwards) else {
            return trimmed(Substring(text))
        }
        // The value repeats inside the parentheses: the cut is where what precedes " (" is
        // what follows it.
        var search = text.startIndex..<described.lowerBound
        while let open = text.range(of: " (", range: search) {
            let value = text[..<open.lowerBound]
            if text[open.upperBound..<described.lowerBound] == value { return trimmed(value) }
            search = open.upperBound..<described.lowerBound
        }
        guard let open = text.range(of: " (", options: .backwards, range: text.startIndex..<described.lowerBound) else { return nil }
        return trimmed(text[..<open.lowerBound])
    }
}
