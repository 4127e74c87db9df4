import Clocks
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// The library is never served stale: a change to a file is seen by the very next request,
/// for the original and for its thumbnails, and a file caught mid-rewrite is never cached.
@Suite struct LibraryChangeTests {
    /// Three different pictures padded to one length (bytes after a JPEG's end are ignored),
    /// so an in-place rewrite keeps the size.
    static let pictures: [[UInt8]] = {
        let encoded = (0..<3).map { try! ImageSynthesis.pattern(width: 400, height: 300, seed: 11 + $0 * 7).encode(.jpeg) }
        let length = encoded.map(\.count).max()! + 64
        return encoded.map { $0 + [UInt8](repeating: 0, count: length - $0.count) }
    }()

    func get(_ port: Int, _ target: String) throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: port).request("GET", target)
    }

    @Test func anInPlaceRewriteARenameAndADeleteAreSeenByTheNextRequest() throws {
        let f = try LibraryFixture(files: ["a.jpg": Self.pictures[0]])
        let path = f.libraryPath + "/a.jpg"
        let original = try get(f.port, "/img/a.jpg")
        let thumbnail = try get(f.port, "/img/a.jpg?w=100")
        #expect(original.body == Self.pictures[0] && thumbnail.status == 200)
        #expect(try get(f.port, "/img/a.jpg?w=100").header("X-Cache") == "memory")

        // Same size, same inode: written over in place.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Self.pictures[1])
        try handle.close()
        let rewritten = try get(f.port, "/img/a.jpg")
        #expect(rewritten.body == Self.pictures[1] && rewritten.header("ETag") != original.header("ETag"))
        let rewrittenThumbnail = try get(f.port, "/img/a.jpg?w=100")
        #expect(rewrittenThumbnail.header("X-Cache") == "miss")
        #expect(rewrittenThumbnail.body != thumbnail.body && rewrittenThumbnail.header("ETag") != thumbnail.header("ETag"))

        // A new file renamed over it.
        try Data(Self.pictures[2]).write(to: URL(fileURLWithPath: f.libraryPath + "/.incoming"))
        #expect(rename(f.libraryPath + "/.incoming", path) == 0)
        let renamed = try get(f.port, "/img/a.jpg")
        #expect(renamed.body == Self.pictures[2])
        let renamedThumbnail = try get(f.port, "/img/a.jpg?w=100")
        #expect(renamedThumbnail.header("X-Cache") == "miss" && renamedThumbnail.body != rewrittenThumbnail.body)

        // Deleted: gone for the original, its cached thumbnail and any new one.
        try FileManager.default.removeItem(atPath: path)
        #expect(try get(f.port, "/img/a.jpg").status == 404)
        #expect(try get(f.port, "/img/a.jpg?w=100").status == 404)
        #expect(try get(f.port, "/img/a.jpg?w=101").status == 404)
    }

    /// Bytes read while the file changes (its version differs after the read from what it
    /// was when opened) are refused, so no thumbnail is made or cached from them.
    @Test func aFileChangedDuringItsReadIsNotTransformed() throws {
        let f = try LibraryFixture(files: ["b.jpg": Self.pictures[0]])
        let library = try ImageLibrary(root: f.libraryPath)
        let path = try LibraryPath(encoded: "b.jpg")
        let files = LibraryFileCache(library: library, fields: ImageFields(cacheControl: "public", acceptClientHints: false).headers(for:), maxContentBytes: 0)
        let entry = try files.lookup(path)
        #expect(entry.readAll() == Self.pictures[0])
        let handle = try #require(FileHandle(forWritingAtPath: f.libraryPath + "/b.jpg"))
        try handle.write(contentsOf: Self.pictures[1])
        try handle.close()
        #expect(entry.readAll() == nil)
        let source = LibrarySource(path: path, entry: entry, clock: SystemClock())
        guard case .failure(.source(let error)) = source.load() else {
            Issue.record("a changed file was read as if unchanged")
            return
        }
        #expect(Problems.response(for: error).status == .serviceUnavailable)
        // The next lookup sees the new version and reads it whole.
        #expect(try files.lookup(path).readAll() == Self.pictures[1])
    }
}
