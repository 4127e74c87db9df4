import Clocks
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// `/v2/list` and `info` as Picsum answers them: paging with `Link`, Picsum's fields with the
/// author from the image itself, ids that stay put when the library grows.
@Suite struct PicsumListTests {
    static func jpeg(_ seed: Int, width: Int = 120, height: Int = 80) -> [UInt8] {
        try! ImageSynthesis.pattern(width: width, height: height, seed: seed).encode(.jpeg)
    }

    static let files: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for i in 0..<5 { files["set/img-\(i).jpg"] = jpeg(i, width: 100 + i, height: 50 + i) }
        files["set/img-1.jpg"] = ImageAuthor.tagging(jpeg: jpeg(1, width: 101, height: 51), creators: ["Ann Lee", "Bo <Chen> & Co"])
        files["set/img-2.jpg"] = TestDocuments.jpeg(jpeg(2, width: 102, height: 52), exifArtist: "Cy Dee")
        return files
    }()

    static func id(_ path: String) -> Int { PicsumCatalog.preferredID(path: path) }

    func json(_ response: RawHTTPClient.Response) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.body))
    }

    func page(_ f: LibraryFixture, _ query: String) throws -> (items: [[String: Any]], link: String?) {
        let response = try RawHTTPClient(port: f.port).request("GET", "/v2/list" + query)
        #expect(response.status == 200 && response.header("Content-Type") == "application/json")
        #expect(response.header("Cache-Control") == "no-store" && response.header("Access-Control-Expose-Headers") == "Picsum-ID, Link")
        return (try #require(try json(response) as? [[String: Any]]), response.header("Link"))
    }

    @Test func theListPagesWithPrevAndNextLinks() throws {
        let f = try LibraryFixture(files: Self.files)
        let first = try page(f, "?page=1&limit=2")
        #expect(first.items.count == 2)
        #expect(first.link == "<http://test/v2/list?page=2&limit=2>; rel=\"next\"")
        let second = try page(f, "?page=2&limit=2")
        #expect(second.link == "<http://test/v2/list?page=1&limit=2>; rel=\"prev\", <http://test/v2/list?page=3&limit=2>; rel=\"next\"")
        let third = try page(f, "?page=3&limit=2")
        #expect(third.items.count == 1 && third.link == "<http://test/v2/list?page=2&limit=2>; rel=\"prev\"")
        #expect(try page(f, "?page=4&limit=2").items.isEmpty)
        // Path order, every image once.
        let ids = (first.items + second.items + third.items).compactMap { $0["id"] as? String }
        #expect(ids == (0..<5).map { String(Self.id("set/img-\($0).jpg")) })
        // Forgiving paging, as Picsum's: defaults for what does not read, 100 at most.
        #expect(try page(f, "").items.count == 5 && page(f, "?limit=abc&page=-3").items.count == 5)
        #expect(try page(f, "?limit=1000").link == nil)
        #expect(try page(f, "?limit=0&page=1").items.count == 5)
    }

    @Test func itemsCarryPicsumsFieldsAndTheAuthorTheImageNames() throws {
        let f = try LibraryFixture(files: Self.files)
        let items = try page(f, "").items
        let tagged = try #require(items.first { $0["id"] as? String == String(Self.id("set/img-1.jpg")) })
        #expect(Set(tagged.keys) == ["id", "author", "width", "height", "url", "download_url"])
        #expect(tagged["author"] as? String == "Ann Lee, Bo <Chen> & Co")
        #expect(tagged["width"] as? Int == 101 && tagged["height"] as? Int == 51)
        #expect(tagged["url"] as? String == "http://test/img/set/img-1.jpg")
        #expect(tagged["download_url"] as? String == "http://test/id/\(Self.id("set/img-1.jpg"))/101/51")
        let exif = try #require(items.first { $0["id"] as? String == String(Self.id("set/img-2.jpg")) })
        #expect(exif["author"] as? String == "Cy Dee")
        let plain = try #require(items.first { $0["id"] as? String == String(Self.id("set/img-0.jpg")) })
        #expect(plain["author"] as? String == "")
        // The download URL is the image at its own size.
        let download = try RawHTTPClient(port: f.port).request("GET", "/id/\(Self.id("set/img-1.jpg"))/101/51")
        #expect(download.status == 200 && download.header("Content-Disposition") == "inline; filename=\"\(Self.id("set/img-1.jpg"))-101x51.jpg\"")

        // info is the same object; a seed's info is the image its redirect picks.
        let info = try RawHTTPClient(port: f.port).request("GET", "/id/\(Self.id("set/img-1.jpg"))/info")
        #expect(info.status == 200 && info.header("Cache-Control") == "no-store" && info.header("Access-Control-Allow-Origin") == "*")
        let object = try #require(try json(info) as? [String: Any])
        #expect(NSDictionary(dictionary: object).isEqual(to: tagged))
        let seeded = try #require(try json(RawHTTPClient(port: f.port).request("GET", "/seed/picsum/info")) as? [String: Any])
        let location = try RawHTTPClient(port: f.port).request("GET", "/seed/picsum/0/0").header("Location")
        #expect(location == "/id/\(seeded["id"] as? String ?? "?")/\(seeded["width"] as? Int ?? 0)/\(seeded["height"] as? Int ?? 0).jpg")
        // Behind a proxy that says https, the URLs say so too.
        let proxied = try RawHTTPClient(port: f.port).request("GET", "/id/\(Self.id("set/img-0.jpg"))/info",
                                                             headers: ["X-Forwarded-Proto: https"])
        #expect((try json(proxied) as? [String: Any])?["url"] as? String == "https://test/img/set/img-0.jpg")
    }

    @Test func idsStayPutWhenTheLibraryGrows() throws {
        let clock = ManualClock()
        let f = try LibraryFixture(files: Self.files, clock: clock)
        func ids() throws -> [String: String] {
            var ids: [String: String] = [:]
            for item in try page(f, "?limit=100").items {
                ids[(item["url"] as? String ?? "").replacingOccurrences(of: "http://test/img/", with: "")] = item["id"] as? String
            }
            return ids
        }
        let before = try ids()
        #expect(before.count == 5)
        try f.write("set/a-first.jpg", Self.jpeg(9))
        try f.write("set/img-2-b.jpg", Self.jpeg(10))
        clock.advance(by: 3)  // the folder is walked again after 2 s
        let after = try ids()
        #expect(after.count == 7)
        for (path, id) in before { #expect(after[path] == id, "\(path)") }
        #expect(after["set/a-first.jpg"] == String(Self.id("set/a-first.jpg")))
    }

    @Test func twoPathsOnOneNumberTakeItInPathOrder() {
        func item(_ path: String) -> LibraryIndex.Item {
            LibraryIndex.Item(path: path, version: "v1", tag: "t1",
                              facts: ImageFacts(width: 1, height: 1, orientation: 1, format: .jpeg, bytes: 1, alpha: false, frames: 1,
                                                placeholder: [], color: "#000000", author: ""))
        }
        // Find two paths whose preferred ids collide.
        var byID: [Int: String] = [:]
        var pair: (String, String)?
        var n = 0
        while pair == nil {
            let path = "p\(n).jpg"
            let id = PicsumCatalog.preferredID(path: path)
            if let other = byID[id] { pair = (other, path) } else { byID[id] = path }
            n += 1
        }
        let (earlier, later) = pair!
        let catalog = PicsumCatalog(LibraryIndex.Snapshot(items: [item(earlier), item(later)].sorted { $0.path < $1.path },
                                                          fingerprint: "f", takenAt: 0))
        let first = min(earlier, later), second = max(earlier, later)
        let preferred = PicsumCatalog.preferredID(path: first)
        #expect(catalog.entries.map(\.item.path) == [first, second])
        #expect(catalog.entries.map(\.id) == [preferred, (preferred + 1) % PicsumCatalog.idCount])
        #expect(catalog.entry(id: preferred)?.item.path == first)
    }
}
