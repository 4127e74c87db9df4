import Foundation
import HTTP
import Testing
@testable import Thumbd
@testable import ThumbdCore

/// The parts of the S3 library that need no store: what is signed (paths, listing queries),
/// the XML read from answers, the location and endpoint forms, what of a request goes on to
/// the store, and the configuration keys.
@Suite struct S3ProtocolTests {
    @Test func locationsAreBucketAndPrefix() {
        #expect(S3Location(parsing: "s3://photos") == S3Location(parsing: "s3://photos/"))
        #expect(S3Location(parsing: "s3://photos/")?.prefix == "")
        #expect(S3Location(parsing: "s3://photos/a/b")?.prefix == "a/b/")
        #expect(S3Location(parsing: "s3://photos/a/b/")?.prefix == "a/b/")
        #expect(S3Location(parsing: "s3://photos/a/b/")?.description == "s3://photos/a/b/")
        for bad in ["./images", "s3://", "s3://ab", "s3://has space/x", "s3://photos/../x", "s3://photos/a//b", "s3://photos/.git",
                    "S3://photos"] {
            #expect(S3Location(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func endpointsPutTheBucketInThePathOrTheHost() throws {
        let rgw = try #require(S3Endpoint(endpoint: "http://127.0.0.1:7480/", region: "us-east-1", pathStyle: nil))
        #expect(rgw.pathStyle && rgw.bucketURL("photos") == "http://127.0.0.1:7480/photos")
        #expect(rgw.listingURL("photos") == "http://127.0.0.1:7480/photos")
        let aws = try #require(S3Endpoint(endpoint: "", region: "eu-west-3", pathStyle: nil))
        #expect(!aws.pathStyle && aws.bucketURL("photos") == "https://photos.s3.eu-west-3.amazonaws.com")
        #expect(aws.listingURL("photos") == "https://photos.s3.eu-west-3.amazonaws.com/")
        let hosted = try #require(S3Endpoint(endpoint: "https://storage.example.com/s3", region: "x", pathStyle: false))
        #expect(hosted.bucketURL("b1b") == "https://b1b.storage.example.com/s3")
        #expect(S3Endpoint(parsing: "ftp://x", pathStyle: true) == nil && S3Endpoint(parsing: "http://x?a=1", pathStyle: true) == nil)
    }

    @Test func listingQueriesAreSortedAndEncodedAsSigned() {
        #expect(S3Client.listQuery(prefix: "lib/", token: nil, maxKeys: 1000) == "list-type=2&max-keys=1000&prefix=lib%2F")
        #expect(S3Client.listQuery(prefix: "", token: "lib/a b+c.jpg", maxKeys: 3)
            == "continuation-token=lib%2Fa%20b%2Bc.jpg&list-type=2&max-keys=3")
    }

    @Test func listingsAndErrorsAreRead() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>photos</Name>\
        <Prefix>dir/</Prefix><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated><Contents><Key>dir/q?a&amp;b=1 &#233;.jpg</Key>\
        <LastModified>2026-11-25T15:51:49.383Z</LastModified><ETag>&quot;498f9a808e0e7ef7a8d05a54d9795474&quot;</ETag><Size>5000</Size>\
        <StorageClass>STANDARD</StorageClass></Contents><Contents><Key>dir/b.jpg</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>\
        <ETag>&quot;abc-2&quot;</ETag><Size>7</Size></Contents><NextContinuationToken>dir/b.jpg</NextContinuationToken><KeyCount>2</KeyCount>\
        </ListBucketResult>
        """
        let page = try #require(S3ListPage(xml: Array(xml.utf8)))
        #expect(page.objects == [
            .init(key: "dir/q?a&b=1 é.jpg", etag: "\"498f9a808e0e7ef7a8d05a54d9795474\"", size: 5000, lastModified: 1_795_621_909),
            .init(key: "dir/b.jpg", etag: "\"abc-2\"", size: 7, lastModified: 1_767_225_600),
        ])
        #expect(page.nextToken == "dir/b.jpg")
        #expect(S3ListPage(xml: Array("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8))?.nextToken == nil)
        #expect(S3ListPage(xml: Array("<Error><Code>AccessDenied</Code></Error>".utf8)) == nil)
        let denied = S3Response(status: 403, body: Array("<Error><Code>SignatureDoesNotMatch</Code><Message></Message></Error>".utf8))
        #expect(denied.failure == .refused(status: 403, code: "SignatureDoesNotMatch"))
        #expect(S3Response(status: 404, body: []).failure == .notFound)
        #expect(S3Response(status: 404, body: Array("<Error><Code>NoSuchBucket</Code></Error>".utf8)).failure
            == .refused(status: 404, code: "NoSuchBucket"))
        #expect(S3Response(status: 503, body: Array("<Error><Code>SlowDown</Code></Error>".utf8)).failure.isUnavailable)
        #expect(S3XML.texts("Key", in: "<Key>a &lt;b&gt; &#x41;&#66; &unknown; &</Key>") == ["a <b> AB &unknown; &"])
        #expect(S3ListPage.seconds("1970-01-01T00:00:10Z") == 10 && S3ListPage.seconds("yesterday") == nil)
    }

    func forwarded(_ headers: [(String, String)]) -> (fields: [String], conditional: Bool) {
        let forwarding = S3Forwarding(HTTPRequest(method: .get, target: "/img/a.jpg", headers: HTTPHeaders([("Host", "t")] + headers)))
        return (forwarding.fields.map { "\($0.0.text): \($0.1)" }, forwarding.rangeIsConditional)
    }

    @Test func whatOfARequestGoesToTheStore() {
        #expect(forwarded([]).fields.isEmpty)
        #expect(forwarded([("Range", "bytes=100-")]).fields == ["Range: bytes=100-"])
        #expect(forwarded([("Range", " bytes = -5 ")]).fields == ["Range: bytes=-5"])
        // Several ranges or a malformed one: the whole object, ranges decided here.
        #expect(forwarded([("Range", "bytes=0-1,5-6")]).fields.isEmpty)
        #expect(forwarded([("Range", "lines=1-2")]).fields.isEmpty)
        // RFC 9110 §13.2.2: the date conditions only without their ETag counterparts.
        #expect(forwarded([("If-None-Match", "\"a\""), ("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]).fields
            == ["If-None-Match: \"a\""])
        #expect(forwarded([("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]).fields
            == ["If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(forwarded([("If-Match", "\"a\""), ("If-Unmodified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]).fields == ["If-Match: \"a\""])
        // If-Range as a precondition the store checks.
        let tagged = forwarded([("Range", "bytes=0-9"), ("If-Range", "\"v1\"")])
        #expect(tagged.fields == ["Range: bytes=0-9", "If-Match: \"v1\""] && tagged.conditional)
        let dated = forwarded([("Range", "bytes=0-9"), ("If-Range", "Sun, 06 Nov 1994 08:49:37 GMT")])
        #expect(dated.fields == ["Range: bytes=0-9", "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT"] && dated.conditional)
        // A weak validator never holds for If-Range; with the client's own If-Match in the way
        // the range is decided here too.
        #expect(forwarded([("Range", "bytes=0-9"), ("If-Range", "W/\"v1\"")]).fields.isEmpty)
        #expect(forwarded([("Range", "bytes=0-9"), ("If-Range", "\"v1\""), ("If-Match", "\"v1\"")]).fields == ["If-Match: \"v1\""])
    }

    @Test func configurationKeysOfTheStore() throws {
        let environment = ["THUMBD_LIBRARY_ROOT": "s3://photos/lib", "THUMBD_LIBRARY_S3_ENDPOINT": "http://127.0.0.1:7480",
                           "THUMBD_LIBRARY_S3_TTL": "0", "THUMBD_S3_ACCESS_KEY": "AKIAEXAMPLE", "THUMBD_S3_SECRET_KEY": "top/secret+key"]
        let loaded = try ConfigLoader.load(file: nil, environment: environment)
        #expect(loaded.warnings.isEmpty)
        let s3 = loaded.config.library.s3
        #expect(loaded.config.library.bucket == S3Location(parsing: "s3://photos/lib/"))
        #expect(s3.endpoint == "http://127.0.0.1:7480" && s3.region == "us-east-1" && s3.pathStyle == nil && s3.ttl == 0)
        #expect(s3.accessKey == "AKIAEXAMPLE" && s3.secretKey == "top/secret+key")
        #expect(!"\(loaded.config)".contains("top/secret+key"))

        // The file's nested section.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-s3-\(UUID().uuidString).yaml").path
        try "library:\n  root: s3://photos\n  s3:\n    region: auto\n    path_style: false\n    ttl: 2m\n".write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try ConfigLoader.load(file: file, environment: ["THUMBD_S3_ACCESS_KEY": "a", "THUMBD_S3_SECRET_KEY": "b"]).config
        #expect(fromFile.library.s3.region == "auto" && fromFile.library.s3.pathStyle == false && fromFile.library.s3.ttl == 120)

        func failure(_ environment: [String: String]) -> ConfigError? {
            do {
                _ = try ConfigLoader.load(file: nil, environment: environment)
                return nil
            } catch {
                return error
            }
        }
        // An S3 root needs both keys; a bad secret is refused without being repeated.
        #expect(failure(["THUMBD_LIBRARY_ROOT": "s3://photos"])?.message.contains("THUMBD_S3_SECRET_KEY") == true)
        let bad = try #require(failure(environment.merging(["THUMBD_S3_SECRET_KEY": "with space"]) { $1 }))
        #expect(bad.key == "library.s3.secret_key" && !bad.message.contains("with space") && bad.message.contains("10 characters"))
        #expect(failure(["THUMBD_LIBRARY_ROOT": "s3://p"])?.key == "library.root")
        #expect(failure(["THUMBD_LIBRARY_S3_ENDPOINT": "localhost:7480"])?.key == "library.s3.endpoint")
        #expect(failure(["THUMBD_LIBRARY_S3_PATH_STYLE": "sometimes"])?.key == "library.s3.path_style")
        // The key path's own variable is not the keys' variable.
        #expect(try ConfigLoader.load(file: nil, environment: ["THUMBD_LIBRARY_S3_SECRET_KEY": "x"]).warnings.count == 1)
    }
}
