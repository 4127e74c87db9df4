import Testing
@testable import ThumbdCore

/// Each kind of object of the shared tier has one place, and a listed key names its object
/// only in the folder it belongs to.
@Suite struct SharedLayoutTests {
    @Test(arguments: ["", "thumbs", "thumbs/", "a/b/"])
    func aNameReadsBackFromItsKey(_ prefix: String) {
        let layout = SharedLayout(prefix: prefix)
        let folders = [SharedLayout.purges, SharedLayout.replicas, SharedLayout.acks(of: "0000000001-ab"),
                       SharedLayout.variants(ofSourcePrefix: "img|a.jpg|")]
        for folder in folders {
            let key = layout.key("name-1", in: folder)
            #expect(layout.name(of: key, in: folder) == "name-1")
            #expect(key.hasPrefix(layout.prefix) && (layout.prefix.isEmpty || layout.prefix.hasSuffix("/")))
            for other in folders where other != folder {
                #expect(layout.name(of: key, in: other) == nil, "\(key) in \(other.path)")
            }
        }
    }

    @Test func deeperOrEmptyNamesAreNone() {
        let layout = SharedLayout(prefix: "thumbs/")
        #expect(layout.name(of: "thumbs/acks/r1/replica-a", in: SharedLayout.purges) == nil)
        #expect(layout.name(of: "thumbs/purges/r1/extra", in: SharedLayout.purges) == nil)
        #expect(layout.name(of: "thumbs/purges/", in: SharedLayout.purges) == nil)
        #expect(layout.name(of: "other/purges/r1", in: SharedLayout.purges) == nil)
        #expect(layout.key(of: SharedLayout.variants) == "thumbs/v1/")
    }

    /// A source's variants are one folder, named by the source's key prefix alone.
    @Test func aSourcesVariantsAreOneFolder() {
        let a = SharedLayout.variants(ofSourcePrefix: "img|a.jpg|"), b = SharedLayout.variants(ofSourcePrefix: "img|b.jpg|")
        #expect(a != b && a.path.hasPrefix(SharedLayout.variants.path) && a.path.hasSuffix("/"))
        #expect(a == SharedLayout.variants(ofSourcePrefix: "img|a.jpg|"))
    }
}
