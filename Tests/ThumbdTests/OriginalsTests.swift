import Clocks
import Foundation
import HTTP
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import WireCoding

/// `/img/{path}` without parameters, against a real server and real files.
@Suite struct OriginalsTests {
    static let photo = LibraryFixture.fakeJPEG(50_000)
    static let large = LibraryFixture.fakeJPEG(2_500_000, seed: 7)

    func fixture(clock: any MonotonicClock = SystemClock()) throws -> LibraryFixture {
        try LibraryFixture(files: ["photo.jpg": Self.photo, "sub dir/large.jpg": Self.large,
                                   "notes.txt": Array("not an image".utf8), ".secret.jpg": Self.photo,
                                   "icon.png": LibraryFixture.pngMagic + [1, 2, 3]], clock: clock)
    }

    @Test func servesTheFileByteForByteWithItsHeaders() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let response = try client.request("GET", "/img/photo.jpg")
        #expect(response.status == 200)
        #expect(response.body == Self.photo)
        #expect(response.header("Content-Type") == "image/jpeg")
        #expect(response.header("Content-Length") == "50000")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.header("Cache-Control") == "public, max-age=86400")
        let etag = try #require(response.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        let modified = try FileManager.default.attributesOfItem(atPath: f.libraryPath + "/photo.jpg")[.modificationDate] as! Date
        #expect(response.header("Last-Modified") == HTTPDate.format(Int(modified.timeIntervalSince1970)))
        #expect(try client.request("GET", "/img/icon.png").header("Content-Type") == "image/png")
    }

    @Test func largeFilesStreamWhole() throws {
        let f = try fixture()
        let response = try RawHTTPClient(port: f.port).request("GET", "/img/sub%20dir/large.jpg")
        #expect(response.status == 200)
        #expect(response.body == Self.large)
    }

    @Test func headMatchesGetWithoutABody() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let head = try client.request("HEAD", "/img/photo.jpg")
        let get = try client.request("GET", "/img/photo.jpg")
        #expect(head.body.isEmpty)
        for name in ["Content-Type", "Content-Length", "ETag", "Last-Modified", "Cache-Control", "Accept-Ranges"] {
            #expect(head.header(name) == get.header(name), "\(name)")
        }
    }

    /// `OPTIONS *` asks about the server as a whole: 200 with what it allows.
    @Test func optionsAsteriskSaysWhatTheServerAllows() throws {
        let f = try fixture()
        let response = try RawHTTPClient(port: f.port).request("OPTIONS", "*")
        #expect(response.status == 200 && response.header("Allow") == "GET, HEAD")
        #expect(response.header("Content-Length") == "0")
        #expect(try RawHTTPClient(port: f.port).request("OPTIONS", "/img/photo.jpg").status == 405)
        // With purge configured, POST is allowed somewhere too.
        let admin = try LibraryFixture(files: [:]) { $0.admin.token = "options-test-token-0123456789" }
        #expect(try RawHTTPClient(port: admin.port).request("OPTIONS", "*").header("Allow") == "GET, HEAD, POST")
    }

    @Test func theETagIsStableAcrossRestartsAndChangesWithTheFile() throws {
        let f = try fixture()
        let first = try RawHTTPClient(port: f.port).request("GET", "/img/photo.jpg").header("ETag")
        var config = f.service.config
        config.server.port = 0
        let second = try ThumbdService(config: config)
        defer { second.stop() }
        #expect(try RawHTTPClient(port: second.port).request("GET", "/img/photo.jpg").header("ETag") == first)

        try f.write("photo.jpg", LibraryFixture.fakeJPEG(50_001, seed: 2))
        // Seen by the very next request: there is no trust window.
        let changed = try RawHTTPClient(port: f.port).request("GET", "/img/photo.jpg")
        #expect(changed.header("ETag") != first)
        #expect(changed.body.count == 50_001)
    }

    @Test func conditionalRequestsGive304() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let full = try client.request("GET", "/img/photo.jpg")
        let etag = try #require(full.header("ETag")), lastModified = try #require(full.header("Last-Modified"))
        for headers in [["If-None-Match: \(etag)"], ["If-None-Match: W/\(etag)"], ["If-None-Match: \"nope\", \(etag)"],
                        ["If-Modified-Since: \(lastModified)"], ["If-None-Match: *"]] {
            let response = try client.request("GET", "/img/photo.jpg", headers: headers)
            #expect(response.status == 304, "\(headers)")
            #expect(response.header("ETag") == etag)
            #expect(response.body.isEmpty)
        }
        let stale = try client.request("GET", "/img/photo.jpg", headers: ["If-None-Match: \"old\""])
        #expect(stale.status == 200 && stale.body == Self.photo)
        let older = HTTPDate.format(HTTPDate.parse(lastModified)! - 60)
        #expect(try client.request("GET", "/img/photo.jpg", headers: ["If-Modified-Since: \(older)"]).status == 200)
        #expect(try client.request("HEAD", "/img/photo.jpg", headers: ["If-None-Match: \(etag)"]).status == 304)
        #expect(try client.request("GET", "/img/photo.jpg", headers: ["If-Match: \"other\""]).status == 412)
    }

    @Test func rangeRequests() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let n = Self.photo.count

        let single = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=100-199"])
        #expect(single.status == 206)
        #expect(single.header("Content-Range") == "bytes 100-199/\(n)")
        #expect(single.body == Array(Self.photo[100..<200]))

        let open = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=49000-"])
        #expect(open.header("Content-Range") == "bytes 49000-\(n - 1)/\(n)")
        #expect(open.body == Array(Self.photo[49000...]))

        let suffix = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=-10"])
        #expect(suffix.header("Content-Range") == "bytes \(n - 10)-\(n - 1)/\(n)")
        #expect(suffix.body == Array(Self.photo.suffix(10)))

        let unsatisfiable = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=60000-"])
        #expect(unsatisfiable.status == 416)
        #expect(unsatisfiable.header("Content-Range") == "bytes */\(n)")

        for malformed in ["Range: bytes=x-y", "Range: bytes=9-1", "Range: pages=1-2", "Range: bytes"] {
            let response = try client.request("GET", "/img/photo.jpg", headers: [malformed])
            #expect(response.status == 200 && response.body == Self.photo, "\(malformed)")
        }
    }

    @Test func multipleRangesComeAsMultipartByteranges() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let response = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=0-3, 1000-1009, -5"])
        #expect(response.status == 206)
        let type = try #require(response.header("Content-Type"))
        #expect(type.hasPrefix("multipart/byteranges; boundary="))
        let boundary = String(type.split(separator: "=", maxSplits: 1)[1])
        let parts = MultipartReader.parts(response.body, boundary: boundary)
        #expect(parts.map(\.contentRange) == ["bytes 0-3/50000", "bytes 1000-1009/50000", "bytes 49995-49999/50000"])
        #expect(parts.map(\.body) == [Array(Self.photo[0..<4]), Array(Self.photo[1000..<1010]), Array(Self.photo.suffix(5))])
        #expect(parts.allSatisfy { $0.contentType == "image/jpeg" })
        let head = try client.request("HEAD", "/img/photo.jpg", headers: ["Range: bytes=0-3, 1000-1009, -5"])
        #expect(head.header("Content-Length") == response.header("Content-Length"))
    }

    @Test func ifRangeHonoursOnlyTheCurrentValidator() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let full = try client.request("GET", "/img/photo.jpg")
        let etag = try #require(full.header("ETag")), lastModified = try #require(full.header("Last-Modified"))
        #expect(try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=0-9", "If-Range: \(etag)"]).status == 206)
        #expect(try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=0-9", "If-Range: \(lastModified)"]).status == 206)
        let changed = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=0-9", "If-Range: \"old\""])
        #expect(changed.status == 200 && changed.body == Self.photo)
        let weak = try client.request("GET", "/img/photo.jpg", headers: ["Range: bytes=0-9", "If-Range: W/\(etag)"])
        #expect(weak.status == 200)
    }

    @Test(arguments: ["/img/../Package.swift", "/img/%2e%2e/%2e%2e/etc/passwd", "/img/%2Fetc%2Fpasswd", "/img//etc/passwd",
                      "/img/photo.jpg%00.png", "/img/.secret.jpg", "/img/missing.jpg", "/img/sub%20dir", "/img/sub%20dir/",
                      "/img/outside.jpg", "/img/outside-dir/passwd", "/img/loop.jpg"])
    func unsafeOrMissingPathsAre404(_ target: String) throws {
        let f = try fixture()
        // Symlinks: one escaping the root (file and folder), one looping.
        try FileManager.default.createSymbolicLink(atPath: f.libraryPath + "/outside.jpg", withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: f.libraryPath + "/outside-dir", withDestinationPath: "/etc")
        try FileManager.default.createSymbolicLink(atPath: f.libraryPath + "/loop.jpg", withDestinationPath: "loop.jpg")
        let response = try RawHTTPClient(port: f.port).request("GET", target)
        #expect(response.status == 404, "\(target)")
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(!response.text.contains("root:"))
    }

    @Test func symlinksInsideTheRootAreFollowed() throws {
        let f = try fixture()
        try FileManager.default.createSymbolicLink(atPath: f.libraryPath + "/alias.jpg", withDestinationPath: "photo.jpg")
        let response = try RawHTTPClient(port: f.port).request("GET", "/img/alias.jpg")
        #expect(response.status == 200 && response.body == Self.photo)
    }

    @Test func errorsAreProblemDetails() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let notImage = try client.request("GET", "/img/notes.txt")
        #expect(notImage.status == 415)
        #expect(notImage.text.contains("\"status\":415"))
        let badEncoding = try client.request("GET", "/img/%zz.jpg")
        #expect(badEncoding.status == 400)
        let unknownParameter = try client.request("GET", "/img/photo.jpg?zoom=2")
        #expect(unknownParameter.status == 400 && unknownParameter.text.contains("zoom"))
        let post = try client.request("POST", "/img/photo.jpg", headers: ["Content-Length: 0"])
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        let nowhere = try client.request("GET", "/nowhere")
        #expect(nowhere.status == 404)
        let body = try JSONSerialization.jsonObject(with: Data(nowhere.body)) as? [String: Any]
        #expect(body?["type"] as? String == "about:blank")
        #expect(body?["title"] as? String == "Not Found")
        #expect(body?["status"] as? Int == 404)
        #expect(body?["detail"] is String)
    }

    @Test func healthAnswersAndTurns503WhileDraining() throws {
        let f = try fixture()
        let client = try RawHTTPClient(port: f.port)
        let ok = try client.request("GET", "/health")
        #expect(ok.status == 200 && ok.text == #"{"status":"ok"}"#)
        #expect(ok.header("Content-Type") == "application/json")
        f.service.app.beginDraining()
        #expect(try client.request("GET", "/health").status == 503)
    }
}

/// Splits a multipart/byteranges body; just enough for the tests.
enum MultipartReader {
    struct Part: Equatable {
        var contentType: String?
        var contentRange: String?
        var body: [UInt8]
    }

    static func parts(_ body: [UInt8], boundary: String) -> [Part] {
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var starts: [Int] = []
        var i = 0
        while i + delimiter.count <= body.count {
            if Array(body[i..<(i + delimiter.count)]) == delimiter {
                starts.append(i)
                i += delimiter.count
            } else {
                i += 1
            }
        }
        var parts: [Part] = []
        for (k, start) in starts.dropLast().enumerated() {
            let section = Array(body[(start + delimiter.count + 2)..<starts[k + 1]])
            guard let headEnd = (0..<(section.count - 3)).first(where: { Array(section[$0..<($0 + 4)]) == [13, 10, 13, 10] }) else { continue }
            var part = Part(body: Array(section[(headEnd + 4)...]))
            for line in String(decoding: section[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n") {
                let pieces = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pieces.first == "Content-Type" { part.contentType = pieces.last }
                if pieces.first == "Content-Range" { part.contentRange = pieces.last }
            }
            parts.append(part)
        }
        return parts
    }
}
