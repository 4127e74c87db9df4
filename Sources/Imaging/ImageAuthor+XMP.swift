import Foundation
import WireCoding

extension ImageAuthor {
    /// The namespace header of a JPEG's XMP segment (APP1).
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// The names in an XMP packet's `dc:creator` (each `rdf:li` of its sequence), unescaped.
    static func creators(inXMP xmp: String) -> [String] {
        guard let start = xmp.range(of: "<dc:creator"), let end = xmp.range(of: "</dc:creator>", range: start.upperBound..<xmp.endIndex)
        else { return [] }
        var names: [String] = []
        var rest = xmp[start.upperBound..<end.lowerBound]
        while let open = rest.range(of: "<rdf:li"), let tagEnd = rest.range(of: ">", range: open.upperBound..<rest.endIndex),
              let close = rest.range(of: "</rdf:li>", range: tagEnd.upperBound..<rest.endIndex) {
            let name = MarkupText.unescaped(rest[tagEnd.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
            if !name.isEmpty { names.append(name) }
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// A minimal XMP packet naming `creators` (`dc:creator`, an ordered sequence).
    public static func xmpPacket(creators: [String]) -> String {
        let items = creators.map { "<rdf:li>\(MarkupText.escaped($0))</rdf:li>" }.joined()
        return "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
            + "<dc:creator><rdf:Seq>\(items)</rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>"
            + "<?xpacket end=\"r\"?>"
    }

    /// The JPEG with an XMP packet naming `creators` in place of any it had, its image data
    /// untouched (no re-encoding): the packet goes in after the leading APP segments (JFIF,
    /// Exif). Nil when the bytes are not a JPEG thumbd can walk.
    public static func tagging(jpeg: [UInt8], creators: [String]) -> [UInt8]? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        let payload = xmpSignature + Array(xmpPacket(creators: creators).utf8)
        guard payload.count + 2 <= 0xFFFF else { return nil }
        var kept: [UInt8] = [0xFF, 0xD8]
        var i = 2
        // The leading APPn segments (0xE0...0xEF), each but an old XMP one kept.
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, (0xE0...0xEF).contains(jpeg[i + 1]) {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            guard length >= 2, i + 2 + length <= jpeg.count else { return nil }
            let segment = jpeg[i..<(i + 2 + length)]
            let isXMP = jpeg[i + 1] == 0xE1 && segment.dropFirst(4).starts(with: xmpSignature)
            if !isXMP { kept += segment }
            i += 2 + length
        }
        let length = payload.count + 2
        return kept + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg[i...]
    }
}
