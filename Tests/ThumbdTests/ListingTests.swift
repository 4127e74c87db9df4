import Clocks
import Foundation
import HTTP
import Imaging
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

@Suite struct ListingTests {
    static let files: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for i in 0..<7 {
            files[String(format: "set/img-%02d.png", i)] = try! ImageSynthesis.solid(width: 10 + i, height: 20 + i, color: [1, 2, 3]).encode(.png)
        }
        files["notes.txt"] = Array("not an image".utf8)
        files[".hidden.png"] = files["set/img-00.png"]
        return files
    }()

    func json(_ response: RawHTTPClient.Response) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
    }

    @Test func pagesWithLinksInAStableOrder() throws {
        let f = try LibraryFixture(files: Self.files)
        let client = try RawHTTPClient(port: f.port)
        let first = try client.request("GET", "/v1/images?limit=3")
        #expect(first.status == 200 && first.header("Content-Type") == "application/json")
        #expect(first.header("Link") == "</v1/images?page=2&limit=3>; rel=\"next\"")
        let items = try json(first)
        #expect(items.map { $0["id"] as? String } == ["set/img-00.png", "set/img-01.png", "set/img-02.png"])
        #expect(items[1]["width"] as? Int == 11 && items[1]["height"] as? Int == 21)
        #expect(items[1]["format"] as? String == "png" && items[1]["url"] as? String == "/img/set/img-01.png")
        #expect((items[1]["bytes"] as? Int) == Self.files["set/img-01.png"]!.count)
        let last = try client.request("GET", "/v1/images?page=3&limit=3")
        #expect(try json(last).map { $0["id"] as? String } == ["set/img-06.png"])
        #expect(last.header("Link") == nil)
        #expect(try json(client.request("GET", "/v1/images?page=9&limit=3")).isEmpty)
        #expect(try json(client.request("GET", "/v1/images")).count == 7)  // no txt, no hidden file
    }

    @Test(arguments: ["limit=0", "limit=101", "limit=abc", "page=0", "page=-1", "limit=5&limit=6", "sort=name"])
    func badPagingIs400(_ query: String) throws {
        let f = try LibraryFixture(files: Self.files)
        let response = try RawHTTPClient(port: f.port).request("GET", "/v1/images?\(query)")
        #expect(response.status == 400 && response.header("Content-Type") == "application/problem+json", "\(query)")
    }

    @Test func etagsGive304AndChangeWithTheLibrary() throws {
        let clock = ManualClock()
        let f = try LibraryFixture(files: Self.files, clock: clock)
        let client = try RawHTTPClient(port: f.port)
        let first = try client.request("GET", "/v1/images?limit=100")
        let etag = try #require(first.header("ETag"))
        #expect(try client.request("GET", "/v1/images?limit=100", headers: ["If-None-Match: \(etag)"]).status == 304)
        try f.write("set/img-03.png", try ImageSynthesis.solid(width: 99, height: 77, color: [9, 9, 9]).encode(.png))
        #expect(try client.request("GET", "/v1/images?limit=100", headers: ["If-None-Match: \(etag)"]).status == 304)
        clock.advance(by: 2)  // the folder is walked again after 2 s
        let changed = try client.request("GET", "/v1/images?limit=100", headers: ["If-None-Match: \(etag)"])
        #expect(changed.status == 200)
        let item = try json(changed).first { $0["id"] as? String == "set/img-03.png" }
        #expect(item?["width"] as? Int == 99 && item?["height"] as? Int == 77)
    }

    @Test func urlsAreSignedWhenSigningIsOn() throws {
        let f = try LibraryFixture(files: Self.files) { $0.security.key = "listing-signing-key-123" }
        let items = try json(RawHTTPClient(port: f.port).request("GET", "/v1/images?limit=1"))
        let url = try #require(items.first?["url"] as? String)
        #expect(url.hasPrefix("/img/set/img-00.png?s="))
        #expect(try RawHTTPClient(port: f.port).request("GET", url).status == 200)
    }

    @Test func theGalleryPageListsThumbnailsWithBothCandidates() throws {
        let f = try LibraryFixture(files: Self.files)
        let page = try RawHTTPClient(port: f.port).request("GET", "/")
        #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
        let html = page.text
        #expect(html.components(separatedBy: "<figure class=\"cell\">").count == 8)
        #expect(html.contains("loading=\"lazy\"") && html.contains("width=\"240\" height=\"240\""))
        #expect(html.contains("srcset=\"/img/set/img-00.png?w=240&amp;h=240&amp;fit=cover 1x, /img/set/img-00.png?w=240&amp;h=240&amp;fit=cover&amp;dpr=2 2x\""))
        #expect(html.contains("alt=\"img-00.png, 10 by 20 pixels\""))
        #expect(!html.contains("http://") && !html.contains("https://"), "no external assets")
    }

    @Test func theGalleryPageIsMadeOncePerSnapshotAndRevalidates() throws {
        let clock = ManualClock()
        let f = try LibraryFixture(files: Self.files, clock: clock)
        let client = try RawHTTPClient(port: f.port)
        let first = try client.request("GET", "/")
        let etag = try #require(first.header("ETag"))
        #expect(first.status == 200 && first.header("Cache-Control") == "no-cache")
        #expect(try client.request("GET", "/", headers: ["If-None-Match: \(etag)"]).status == 304)
        let again = try client.request("GET", "/")
        #expect(again.body == first.body && again.header("ETag") == etag)
        // Past the last page is the last page: one entry, not one per number asked.
        #expect(try client.request("GET", "/?page=99").header("ETag") == etag)
        #expect(f.service.app.gallery.pages.count == 1)
        let selftest = try client.request("GET", "/?selftest=1")
        #expect(selftest.header("ETag") != etag && f.service.app.gallery.pages.count == 2)

        // An unchanged walk keeps the page; a changed library makes it again.
        clock.advance(by: 2)
        #expect(try client.request("GET", "/", headers: ["If-None-Match: \(etag)"]).status == 304)
        try f.write("set/img-07.png", try ImageSynthesis.solid(width: 30, height: 40, color: [9, 9, 9]).encode(.png))
        clock.advance(by: 2)
        let changed = try client.request("GET", "/", headers: ["If-None-Match: \(etag)"])
        #expect(changed.status == 200 && changed.header("ETag") != etag)
        #expect(changed.text.components(separatedBy: "<figure class=\"cell\">").count == 9)
        #expect(f.service.app.gallery.pages.count == 1, "the old snapshot's pages are dropped")
    }

    @Test func aKeptGalleryPageIsAnsweredWhileTheWorkersAreFull() throws {
        let clock = ManualClock()
        let f = try LibraryFixture(files: Self.files, clock: clock) { $0.limits.workers = 1; $0.limits.queue = 2 }
        let client = try RawHTTPClient(port: f.port)
        let first = try client.request("GET", "/")
        #expect(first.status == 200)
        // The job that made the page may still be ending after its answer went.
        let pool = f.service.app.pool
        #expect(eventually { pool.running == 0 && pool.queueDepth == 0 })
        let gate = DispatchSemaphore(value: 0)
        var held = 0
        while pool.submit({ gate.wait() }) { held += 1 }
        defer { for _ in 0..<held { gate.signal() } }
        #expect(held == 3)
        // The page kept is answered as a hit is; a listing, which needs a worker, is shed.
        #expect(try client.request("GET", "/").status == 200)
        #expect(try client.request("GET", "/v1/images").status == 503)
        // Due for a walk with no worker free for it: the kept page still, not a 503.
        clock.advance(by: 2)
        let stale = try client.request("GET", "/")
        #expect(stale.status == 200 && stale.header("ETag") == first.header("ETag"))
    }

    @Test func keptPagesStayWithinTheirBudgetAndFollowTheNewestSnapshot() {
        let pages = GalleryPages(byteBudget: 250)
        func page(_ n: Int) -> Representation {
            Representation(contentType: "text/html", body: .bytes(Array(repeating: 0x20, count: 100)), etag: EntityTag("p\(n)"))
        }
        for n in 1...3 { pages.keep(page(n), .init(page: n, selftest: false), fingerprint: "a", pageCount: 5) }
        #expect(pages.count == 2, "the oldest page goes past 250 bytes")
        #expect(pages.kept(page: 1, selftest: false, fingerprint: "a") == nil)
        #expect(pages.kept(page: 3, selftest: false, fingerprint: "a")?.etag == EntityTag("p3"))
        #expect(pages.kept(page: 9, selftest: false, fingerprint: "a") == nil, "page 9 is page 5")
        #expect(pages.kept(page: 3, selftest: false, fingerprint: "b") == nil)
        #expect(pages.keptWhileRefreshing(page: 3, selftest: false) == nil, "only while a walk is under way")
        pages.refreshing()
        #expect(pages.keptWhileRefreshing(page: 3, selftest: false)?.etag == EntityTag("p3"))
        pages.refreshed()
        pages.keep(page(4), .init(page: 1, selftest: false), fingerprint: "b", pageCount: 1)
        #expect(pages.count == 1 && pages.kept(page: 7, selftest: false, fingerprint: nil)?.etag == EntityTag("p4"))
    }
}
