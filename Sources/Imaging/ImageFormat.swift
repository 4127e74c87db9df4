/// Source formats recognized from their leading bytes (never from the file name): images, and
/// the videos whose poster frames and previews thumbd makes (`isVideo`).
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, avif, heic, tiff, jxl, bmp, svg, pdf
    case mp4, mov, webm

    /// A video container: its thumbnails are made from a frame (FFmpeg), not by libvips' loaders.
    public var isVideo: Bool { self == .mp4 || self == .mov || self == .webm }

    /// A vector document: its pages are drawn by a renderer process (`VectorPages`), never
    /// read by libvips in the server's own.
    public var isVector: Bool { self == .svg || self == .pdf }

    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .tiff: "image/tiff"
        case .jxl: "image/jxl"
        case .bmp: "image/bmp"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .webm: "video/webm"
        }
    }

    /// The format a media type names (as `mediaType` writes it); nil for others.
    public init?(mediaType: String) {
        guard let format = Self.allCases.first(where: { $0.mediaType == mediaType }) else { return nil }
        self = format
    }

    /// Bytes `sniff` needs to decide (an SVG's root element may follow an XML declaration,
    /// comments and a doctype).
    public static let sniffLength = 512

    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8, C.Index == Int {
        let b = Array(bytes.prefix(sniffLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<(offset + prefix.count)]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if brand == "avif" || brand == "avis" { return .avif }
            if ["heic", "heix", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .heic }
            if brand == "qt  " { return .mov }
            if Self.mp4Brands.contains(brand) { return .mp4 }
        }
        // Old QuickTime files open with their movie box (or a `wide` pad before the media).
        if starts(Array("moov".utf8), at: 4) || starts(Array("wide".utf8), at: 4) { return .mov }
        // EBML, whose document type (within the header's first bytes) says WebM.
        if starts([0x1A, 0x45, 0xDF, 0xA3]), Self.contains(Array(b.prefix(64)), Array("webm".utf8)) { return .webm }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if starts(Array("BM".utf8)) && b.count >= 14 { return .bmp }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        // Text whose first tag is an XML declaration, a comment, a doctype or the root: an SVG
        // when an `<svg` element opens within the bytes looked at.
        let text = b.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if text.first == UInt8(ascii: "<"), Self.contains(Array(text), Array("<svg".utf8)) { return .svg }
        return nil
    }

    /// ISO base media brands of MP4 video (HEIF and AVIF brands are images, sniffed before).
    static let mp4Brands: Set<String> = ["isom", "iso2", "iso4", "iso5", "iso6", "iso8", "iso9", "mp41", "mp42", "avc1",
                                         "M4V ", "M4VP", "dash", "3gp4", "3gp5", "3gp6", "3g2a", "mmp4", "MSNV", "XAVC", "f4v "]

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle {
            return true
        }
        return false
    }
}
