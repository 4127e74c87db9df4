import Cache
import Foundation
import Testing
import ThumbdProtocol
@testable import ThumbdCore

/// Every key the tiers and flights use, spelled as the builds that wrote the entries on disk
/// and in the shared store spelled them (the variant keys of each source kind are in
/// `VersionTagTests`).
@Suite struct ThumbnailKeysTests {
    static let source = SourceName.library("trips/a|b.jpg")
    static let version = VersionTag(.modified(seconds: 1_700_000_000))

    /// The cascades' faces keep the keys earlier builds gave them; the CNN's have their own, so
    /// that a switch of detector finds the faces again.
    @Test func facesKeysAreThoseOfEarlierBuilds() {
        let cases: [(LoadedSource.Still?, String)] = [
            (nil, "img|trips/a%7Cb.jpg|m1700000000|faces1"),
            (.video(.poster(nil)), "img|trips/a%7Cb.jpg|still=poster(nil)|m1700000000|faces1"),
            (.video(.poster(.seconds(2.5))), "img|trips/a%7Cb.jpg|still=poster(Optional(2.5))|m1700000000|faces1"),
            (.video(.poster(.percent(25))), "img|trips/a%7Cb.jpg|still=poster(Optional(25%))|m1700000000|faces1"),
            (.video(.preview), "img|trips/a%7Cb.jpg|still=preview|m1700000000|faces1"),
            (.drawing(width: 300, height: 200), "img|trips/a%7Cb.jpg|still=drawn=300x200|m1700000000|faces1"),
        ]
        for (still, written) in cases {
            #expect(ThumbnailKeys.faces(Self.source, still: still, version: Self.version, model: "haar").text == written)
            let cnn = ThumbnailKeys.faces(Self.source, still: still, version: Self.version, model: "yunet@0.6").text
            #expect(cnn == written.dropLast("faces1".count) + "faces-yunet@0.6")
        }
    }

    @Test func aWatermarkedVariantNamesTheWatermarksVersion() {
        var options = TransformOptions()
        options.width = 300
        let key = ThumbnailKeys.variant(Self.source, version: Self.version, options: options, format: .chosen(.webp), watermark: "o1-2")
        #expect(key.text == "img|trips/a%7Cb.jpg|m1700000000|\(options.canonicalText)|webp|wm=o1-2")
        #expect(ThumbnailKeys.versions("m1700000000", watermark: "o1-2") == "m1700000000|wm=o1-2")
        #expect(ThumbnailKeys.versions("m1700000000", watermark: nil) == "m1700000000")
    }

    /// Every stored key of a source, and only those, starts with its prefix: what a purge finds.
    @Test func everyKeyOfASourceStartsWithItsPrefix() {
        let other = SourceName.library("trips/a")
        let keys = [
            ThumbnailKeys.variant(Self.source, version: Self.version, options: TransformOptions(), format: .negotiated(.avif), watermark: nil).text,
            ThumbnailKeys.faces(Self.source, still: .video(.preview), version: Self.version, model: "yunet").text,
            ThumbnailKeys.flight(Self.source, options: TransformOptions(), negotiated: nil, watermark: nil),
            ThumbnailKeys.original(Self.source),
            ThumbnailKeys.batch(Self.source, page: 2),
            ThumbnailKeys.header(Self.source, version: Self.version, page: 2),
        ]
        for key in keys {
            #expect(key.hasPrefix(Self.source.keyPrefix) && !key.hasPrefix(other.keyPrefix), "\(key)")
        }
        #expect(ThumbnailKeys.original(Self.source) == "img|trips/a%7Cb.jpg|original")
        #expect(ThumbnailKeys.batch(Self.source, page: 2) == "img|trips/a%7Cb.jpg|2")
        #expect(ThumbnailKeys.header(Self.source, version: Self.version, page: 3) == "img|trips/a%7Cb.jpg|m1700000000|3")
    }

    /// Faces kept by an earlier build (their entry form, without scores) read back; so do scored
    /// ones; a thumbnail never does.
    @Test func keptFacesReadBackFromTheirEntry() throws {
        let faces = FoundFaces(boxes: [DetectedFace(box: PixelRect(x: 1, y: 2, width: 30, height: 40))], lastModified: 1_700_000_000)
        let written = CachedVariant(bytes: Array(#"[{"x":1,"y":2,"width":30,"height":40}]"#.utf8),
                                    contentType: "application/vnd.thumbd.faces", etag: "f", lastModified: 1_700_000_000)
        #expect(FoundFaces(entry: written) == faces)
        #expect(FoundFaces(entry: faces.entry) == faces)
        let scored = FoundFaces(boxes: [DetectedFace(box: PixelRect(x: 1, y: 2, width: 30, height: 40), score: 0.917)], lastModified: 1)
        #expect(FoundFaces(entry: scored.entry) == scored)
        // One flat object per face: the box's fields beside the score.
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(scored.entry.bytes)) as? [[String: Any]])
        #expect(objects.count == 1 && Set(objects[0].keys) == ["x", "y", "width", "height", "score"])
        #expect((objects[0]["score"] as? Double) == 0.917 && (objects[0]["width"] as? Int) == 30)
        #expect(FoundFaces(entry: CachedVariant(bytes: written.bytes, contentType: "image/jpeg", etag: "t1", lastModified: 0)) == nil)
    }
}
