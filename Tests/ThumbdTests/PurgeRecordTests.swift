import Testing
@testable import ThumbdCore

/// A purge record reads back as what was published, in its JSON form and in the query form
/// earlier builds wrote; anything else is no record.
@Suite struct PurgeRecordTests {
    @Test(arguments: [
        PurgeTarget.library(try! LibraryPath(decoded: "trips/été 1/a+b.jpg")),
        .remote("https://images.example.com/a.jpg?size=large&v=2"),
        .folder(try! LibraryPath(decoded: "trips/2024")),
    ])
    func aRecordReadsBackAsPublished(_ target: PurgeTarget) {
        let record = PurgeRecord(target: target)
        #expect(PurgeRecord(bytes: record.bytes) == record)
    }

    @Test func theJSONFormNamesTheTarget() {
        let record = PurgeRecord(target: .library(try! LibraryPath(decoded: "trips/a.jpg")))
        #expect(String(decoding: record.bytes, as: UTF8.self) == #"{"target":{"path":"trips/a.jpg"}}"#)
        #expect(String(decoding: PurgeRecord(target: .folder(try! LibraryPath(decoded: "trips"))).bytes, as: UTF8.self)
                == #"{"target":{"folder":"trips"}}"#)
    }

    /// Records published by builds before the typed record, still in the store for a day.
    @Test func recordsOfEarlierBuildsStillRead() {
        #expect(PurgeRecord(bytes: Array("path=trips/%C3%A9t%C3%A9%201/a%2Bb.jpg".utf8))?.target
                == .library(try! LibraryPath(decoded: "trips/été 1/a+b.jpg")))
        #expect(PurgeRecord(bytes: Array("url=https%3A%2F%2Fimages.example.com%2Fa.jpg%3Fv%3D2".utf8))?.target
                == .remote("https://images.example.com/a.jpg?v=2"))
    }

    @Test(arguments: ["", "{}", "path=", "path=../secret", "path=%zz", "name=a.jpg", #"{"target":{"path":".hidden/a.jpg"}}"#, "\u{0}"])
    func whatNoBuildWroteIsNoRecord(_ text: String) {
        #expect(PurgeRecord(bytes: Array(text.utf8)) == nil)
    }
}
