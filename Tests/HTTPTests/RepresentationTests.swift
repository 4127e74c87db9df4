import HTTP
import Testing
import WireCoding

@Suite struct RepresentationTests {
    static let modified = 1_700_000_000
    let rep = Representation(contentType: "image/png", body: .bytes(Array(0..<100)), etag: EntityTag("v1"),
                             lastModified: Timestamp(seconds: RepresentationTests.modified))

    func request(_ method: HTTPMethod = .get, _ headers: [(String, String)]) -> HTTPRequest {
        HTTPRequest(method: method, target: "/x", headers: HTTPHeaders([("Host", "h")] + headers))
    }

    func outcome(_ headers: [(String, String)], method: HTTPMethod = .get) -> Representation.Outcome {
        rep.evaluate(request(method, headers))
    }

    let lastModifiedText = HTTPDate.format(RepresentationTests.modified)
    let earlier = HTTPDate.format(RepresentationTests.modified - 10)
    let later = HTTPDate.format(RepresentationTests.modified + 10)

    @Test func onlyPreconditionAndRangeFieldsCount() {
        for name in ["If-None-Match", "if-modified-since", "IF-MATCH", "If-Unmodified-Since", "If-Range", "Range", "rAnGe"] {
            #expect(request(.get, [(name, "x")]).hasPreconditionsOrRange, "\(name)")
        }
        for name in ["Accept", "Ranges", "Rang", "Iffy-Thing", "If", "X-If-Match", "Content-Range"] {
            #expect(!request(.get, [(name, "x")]).hasPreconditionsOrRange, "\(name)")
        }
        #expect(!request(.get, []).hasPreconditionsOrRange)
    }

    @Test func ifNoneMatchUsesWeakComparison() {
        #expect(outcome([("If-None-Match", "\"v1\"")]) == .notModified)
        #expect(outcome([("If-None-Match", "W/\"v1\"")]) == .notModified)
        #expect(outcome([("If-None-Match", "\"v0\", \"v1\"")]) == .notModified)
        #expect(outcome([("If-None-Match", "*")]) == .notModified)
        #expect(outcome([("If-None-Match", "\"v2\"")]) == .full)
        #expect(outcome([("If-None-Match", "\"v1\"")], method: .head) == .notModified)
    }

    @Test func ifModifiedSinceComparesDatesAndYieldsToIfNoneMatch() {
        #expect(outcome([("If-Modified-Since", lastModifiedText)]) == .notModified)
        #expect(outcome([("If-Modified-Since", later)]) == .notModified)
        #expect(outcome([("If-Modified-Since", earlier)]) == .full)
        #expect(outcome([("If-Modified-Since", "garbage")]) == .full)
        // If-None-Match present and not matching: If-Modified-Since is ignored.
        #expect(outcome([("If-None-Match", "\"v2\""), ("If-Modified-Since", later)]) == .full)
    }

    @Test func ifMatchAndIfUnmodifiedSinceGive412() {
        #expect(outcome([("If-Match", "\"v2\"")]) == .preconditionFailed)
        #expect(outcome([("If-Match", "W/\"v1\"")]) == .preconditionFailed)
        #expect(outcome([("If-Match", "\"v1\"")]) == .full)
        #expect(outcome([("If-Unmodified-Since", earlier)]) == .preconditionFailed)
        #expect(outcome([("If-Unmodified-Since", later)]) == .full)
    }

    /// RFC 9110 §13.2.2: If-Match (or If-Unmodified-Since) is evaluated before If-None-Match,
    /// so a failed If-Match is 412 even when If-None-Match alone would give 304.
    @Test func ifMatchIsEvaluatedBeforeIfNoneMatch() {
        #expect(outcome([("If-Match", "\"v0\""), ("If-None-Match", "\"v1\"")]) == .preconditionFailed)
        #expect(outcome([("If-None-Match", "\"v1\""), ("If-Match", "\"v0\"")]) == .preconditionFailed)
        #expect(outcome([("If-Unmodified-Since", earlier), ("If-None-Match", "\"v1\"")]) == .preconditionFailed)
        #expect(outcome([("If-Match", "\"v1\""), ("If-None-Match", "\"v1\"")]) == .notModified)
        #expect(outcome([("If-Match", "*"), ("If-None-Match", "\"v2\"")]) == .full)
    }

    @Test func rangesAndIfRange() {
        #expect(outcome([("Range", "bytes=0-9")]) == .partial([0..<10]))
        #expect(outcome([("Range", "bytes=0-9"), ("If-Range", "\"v1\"")]) == .partial([0..<10]))
        #expect(outcome([("Range", "bytes=0-9"), ("If-Range", "W/\"v1\"")]) == .full)
        #expect(outcome([("Range", "bytes=0-9"), ("If-Range", "\"v0\"")]) == .full)
        #expect(outcome([("Range", "bytes=0-9"), ("If-Range", lastModifiedText)]) == .partial([0..<10]))
        #expect(outcome([("Range", "bytes=0-9"), ("If-Range", later)]) == .full)
        #expect(outcome([("Range", "bytes=100-")]) == .rangeNotSatisfiable)
        #expect(outcome([("Range", "bytes=x")]) == .full)
        #expect(outcome([("Range", "bytes=0-9")], method: .other("POST")) == .full)
        // A matching If-None-Match wins over Range.
        #expect(outcome([("Range", "bytes=0-9"), ("If-None-Match", "\"v1\"")]) == .notModified)
    }

    @Test func buildsMultipartBodiesWithExactLengths() {
        let response = rep.response(to: request(.get, [("Range", "bytes=0-1,10-12")]))
        #expect(response.status == .partialContent)
        let contentType = response.headers["Content-Type"] ?? ""
        #expect(contentType.hasPrefix("multipart/byteranges; boundary="))
        let boundary = String(contentType.dropFirst("multipart/byteranges; boundary=".count))
        var bytes: [UInt8] = []
        for segment in response.body.segments {
            if case .bytes(let b) = segment { bytes += b }
        }
        #expect(Int64(bytes.count) == response.body.count)
        let expected = "\r\n--\(boundary)\r\nContent-Type: image/png\r\nContent-Range: bytes 0-1/100\r\n\r\n"
        #expect(Array(bytes.prefix(expected.utf8.count)) == Array(expected.utf8))
        #expect(bytes[expected.utf8.count] == 0 && bytes[expected.utf8.count + 1] == 1)
        #expect(String(decoding: bytes.suffix(boundary.utf8.count + 8), as: UTF8.self) == "\r\n--\(boundary)--\r\n")
    }

    @Test func notModifiedCarriesValidatorsButNoContentType() {
        let response = rep.response(to: request(.get, [("If-None-Match", "\"v1\"")]))
        #expect(response.status == .notModified)
        #expect(response.headers["ETag"] == "\"v1\"")
        #expect(response.headers["Content-Type"] == nil)
        #expect(response.body.count == 0)
    }

    @Test func unsatisfiableRangeNamesTheLength() {
        let response = rep.response(to: request(.get, [("Range", "bytes=500-")]))
        #expect(response.status == .rangeNotSatisfiable)
        #expect(response.headers["Content-Range"] == "bytes */100")
    }
}
