import Imaging
import Testing
import TestSupport

/// Who made an image, from its EXIF Artist or its XMP creators, and XMP written into a JPEG
/// without touching its image data.
@Suite struct ImageAuthorTests {
    static let jpeg: [UInt8] = try! ImageSynthesis.pattern(width: 64, height: 48, seed: 2).encode(.jpeg)

    @Test func theEXIFArtistComesFirst() throws {
        let named = TestDocuments.jpeg(Self.jpeg, exifArtist: "Ann (Lee) ")
        #expect(ImageAuthor.read(named) == "Ann (Lee)")
        let both = try #require(ImageAuthor.tagging(jpeg: named, creators: ["Someone Else"]))
        #expect(ImageAuthor.read(both) == "Ann (Lee)")
        #expect(ImageAuthor.read(Self.jpeg) == "")
        #expect(ImageAuthor.read(Array("not an image".utf8)) == "")
    }

    @Test func xmpCreatorsAreJoinedAndUnescaped() throws {
        let tagged = try #require(ImageAuthor.tagging(jpeg: Self.jpeg, creators: ["Ann Lee", "Bo <Chen> & \"Co\"", "Zoë"]))
        #expect(ImageAuthor.read(tagged) == "Ann Lee, Bo <Chen> & \"Co\", Zoë")
        // Tagged again: the new packet replaces the old one, the image data stays byte for byte.
        let retagged = try #require(ImageAuthor.tagging(jpeg: tagged, creators: ["Cy Dee"]))
        #expect(ImageAuthor.read(retagged) == "Cy Dee")
        let scan = Array(Self.jpeg.suffix(Self.jpeg.count - 20))
        #expect(retagged.suffix(scan.count).elementsEqual(scan))
        #expect(try VipsImage.decode(retagged).pixel(x: 10, y: 10) == VipsImage.decode(Self.jpeg).pixel(x: 10, y: 10))
        #expect(ImageAuthor.tagging(jpeg: Array("GIF89a".utf8), creators: ["x"]) == nil)
    }

    @Test func xmpWrittenByOtherToolsIsReadToo() throws {
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Not a name</rdf:li></rdf:Alt></dc:title>
            <dc:creator>
              <rdf:Seq>
                <rdf:li> Jean-Fran&#231;ois &amp; Fortin Tam </rdf:li>
                <rdf:li xml:lang="en">Lee&#x2019;s</rdf:li>
              </rdf:Seq>
            </dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let png = try ImageSynthesis.withProfileAndXMP(ImageSynthesis.pattern(width: 40, height: 30), xmp: xmp).encode(.png, strip: false)
        #expect(ImageAuthor.read(png) == "Jean-François & Fortin Tam, Lee\u{2019}s")
    }
}
