import Dispatch
import Foundation
import HTTP
import Imaging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore

/// An image's facts (`/v1/images/{path}`, `/v1/info`): size after orientation, format,
/// alpha, frames, placeholders. Over HTTP against the real server.
@Suite struct ImageInfoTests {
    static let files: [String: [UInt8]] = {
        func make(_ body: () throws -> [UInt8]) -> [UInt8] { try! body() }
        return [
            "photo.jpg": make { try ImageSynthesis.pattern(width: 640, height: 480, seed: 4).encode(.jpeg) },
            "rotated.jpg": make { try ImageSynthesis.withOrientation(ImageSynthesis.pattern(width: 400, height: 200), 6).encode(.jpeg, strip: false) },
            "alpha.png": make { try ImageSynthesis.pattern(width: 120, height: 80, bands: 4).encode(.png) },
            "anim.gif": make {
                try ImageSynthesis.animation([ImageSynthesis.solid(width: 60, height: 40, color: [255, 0, 0]),
                                              ImageSynthesis.solid(width: 60, height: 40, color: [0, 255, 0]),
                                              ImageSynthesis.solid(width: 60, height: 40, color: [0, 0, 255])]).encode(.gif)
            },
        ]
    }()

    func json(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func listingItemsCarryAPlaceholderAndAColour() throws {
        let f = try LibraryFixture(files: Self.files)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(RawHTTPClient(port: f.port).request("GET", "/v1/images").body)) as? [[String: Any]])
        #expect(items.count == 4)
        for item in items {
            let hash = try #require(Data(base64Encoded: item["placeholder"] as? String ?? ""))
            #expect(hash.count >= 5, "\(item["id"] ?? "")")
            #expect((item["color"] as? String)?.wholeMatch(of: /#[0-9a-f]{6}/) != nil)
        }
        let red = try #require(items.first { $0["id"] as? String == "anim.gif" })
        #expect(red["color"] as? String == "#ff0000", "the first frame's colour")
    }

    @Test func infoGivesTheFactsAnAppNeedsWithAStrongETag() throws {
        let f = try LibraryFixture(files: Self.files)
        let client = try RawHTTPClient(port: f.port)
        let photo = try client.request("GET", "/v1/images/photo.jpg")
        #expect(photo.status == 200 && photo.header("Content-Type") == "application/json")
        let facts = try json(photo)
        #expect(facts["id"] as? String == "photo.jpg" && facts["width"] as? Int == 640 && facts["height"] as? Int == 480)
        #expect(facts["format"] as? String == "jpeg" && facts["alpha"] as? Bool == false && facts["frames"] as? Int == 1)
        #expect(facts["orientation"] as? Int == 1 && facts["bytes"] as? Int == Self.files["photo.jpg"]!.count)
        #expect(facts["url"] as? String == "/img/photo.jpg")
        let original = try client.request("HEAD", "/img/photo.jpg")
        #expect(facts["etag"] as? String == original.header("ETag"))
        let etag = try #require(photo.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        #expect(try client.request("GET", "/v1/images/photo.jpg", headers: ["If-None-Match: \(etag)"]).status == 304)

        let rotated = try json(client.request("GET", "/v1/images/rotated.jpg"))
        #expect(rotated["width"] as? Int == 200 && rotated["height"] as? Int == 400 && rotated["orientation"] as? Int == 6)
        #expect(try json(client.request("GET", "/v1/images/alpha.png"))["alpha"] as? Bool == true)
        #expect(try json(client.request("GET", "/v1/images/anim.gif"))["frames"] as? Int == 3)

        #expect(try client.request("GET", "/v1/images/missing.jpg").status == 404)
        #expect(try client.request("GET", "/v1/images/%zz.jpg").status == 400)
        #expect(try client.request("GET", "/v1/images/../etc/passwd").status == 404)
        #expect(try client.request("POST", "/v1/images/photo.jpg").status == 405)
        let typo = try client.request("GET", "/v1/images/photo.jpg?w=100")
        #expect(typo.status == 400 && typo.text.contains("\"parameter\":\"w\""), "\(typo.text)")
    }

    @Test func remoteInfoComesThroughTheOriginCacheAndItsRules() throws {
        let origin = try TestOrigin()
        let f = try LibraryFixture { config in
            config.origins.allow = ["127.0.0.1"]
            config.origins.allowPrivate = true
        }
        let url = "http://127.0.0.1:\(origin.port)/photo.jpg"
        let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let info = try RawHTTPClient(port: f.port).request("GET", "/v1/info?url=\(encoded)")
        #expect(info.status == 200)
        let facts = try json(info)
        #expect(facts["id"] as? String == url && facts["width"] as? Int == 800 && facts["height"] as? Int == 600)
        #expect((facts["url"] as? String)?.hasPrefix("/proxy?url=") == true)
        // One fetch: the proxy route then uses the original the info fetched.
        #expect(try RawHTTPClient(port: f.port).request("GET", "/proxy?url=\(encoded)&w=50").status == 200)
        #expect(origin.count("/photo.jpg") == 1)
        let denied = "http://example.com/a.jpg".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/info?url=\(denied)").status == 403)
        #expect(try RawHTTPClient(port: f.port).request("GET", "/v1/info").status == 400)
    }
}
