/// Small documents made by hand for the tests.
public enum TestDocuments {
    /// A PDF of 100x100-point pages, each filled with one colour (r, g, b in 0...1), with a
    /// correct cross-reference table; `sizes` gives each page another size in points.
    public static func pdf(pages: [(Double, Double, Double)], sizes: [(Int, Int)]? = nil) -> [UInt8] {
        var objects: [String] = []
        let pageIDs = pages.indices.map { 3 + $0 * 2 }
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        objects.append("<< /Type /Pages /Kids [\(pageIDs.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
        for (index, colour) in pages.enumerated() {
            let (width, height) = sizes?[index] ?? (100, 100)
            let stream = "\(colour.0) \(colour.1) \(colour.2) rg 0 0 \(width) \(height) re f"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents \(pageIDs[index] + 1) 0 R >>")
            objects.append("<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream")
        }
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            out += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }

    /// `jpeg` with an EXIF segment naming `artist` in IFD0's Artist (one entry, big-endian),
    /// put in right after the start marker.
    public static func jpeg(_ jpeg: [UInt8], exifArtist artist: String) -> [UInt8] {
        let text = Array(artist.utf8) + [0]
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A, 0, 0, 0, 8]      // big-endian, IFD0 at 8
        tiff += [0, 1]                                                      // one entry
        tiff += [0x01, 0x3B, 0, 2]                                          // Artist, ASCII
        tiff += [UInt8(text.count >> 24), UInt8(text.count >> 16 & 0xFF), UInt8(text.count >> 8 & 0xFF), UInt8(text.count & 0xFF)]
        tiff += [0, 0, 0, 26]                                               // the text after the IFD: 8 + 2 + 12 + 4
        tiff += [0, 0, 0, 0]                                                // no next IFD
        tiff += text
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }
}
