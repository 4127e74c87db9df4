import HTTP
import PropertyBased
import Testing

@Suite struct RequestParserTests {
    func parse(_ text: String, limits: RequestParser.Limits = .init()) -> RequestParser.Outcome {
        RequestParser.parse(Array(text.utf8), limits: limits)
    }

    func request(_ text: String) throws -> (HTTPRequest, Int) {
        guard case .request(let request, let consumed) = parse(text) else {
            Issue.record("expected a request from \(text.debugDescription), got \(parse(text))")
            throw CancellationError()
        }
        return (request, consumed)
    }

    func failureStatus(_ text: String, limits: RequestParser.Limits = .init()) -> Int? {
        if case .failure(let failure) = parse(text, limits: limits) { return failure.status.code }
        return nil
    }

    @Test func parsesASimpleGet() throws {
        let text = "GET /img/cat.jpg?w=300 HTTP/1.1\r\nHost: example.com\r\nAccept: image/webp, */*\r\n\r\n"
        let (req, consumed) = try request(text)
        #expect(consumed == text.utf8.count)
        #expect(req.method == .get)
        #expect(req.target == "/img/cat.jpg?w=300")
        #expect(req.path == "/img/cat.jpg")
        #expect(req.query == "w=300")
        #expect(req.version == .http11)
        #expect(req.headers["host"] == "example.com")
        #expect(req.headers["ACCEPT"] == "image/webp, */*")
        #expect(req.wantsKeepAlive)
    }

    @Test func consumesOnlyTheFirstOfPipelinedRequests() throws {
        let one = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        let (req, consumed) = try request(one + "GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(req.target == "/a")
        #expect(consumed == one.utf8.count)
    }

    @Test func incompleteHeadsAskForMore() {
        for text in ["", "GET", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r", "\r"] {
            guard case .incomplete = parse(text) else {
                Issue.record("\(text.debugDescription) should be incomplete")
                continue
            }
        }
    }

    @Test func toleratesLeadingEmptyLinesAndTrimsValues() throws {
        let (req, _) = try request("\r\n\r\nHEAD / HTTP/1.1\r\nHost:   spaced \t \r\n\r\n")
        #expect(req.method == .head)
        #expect(req.headers["Host"] == "spaced")
    }

    @Test func http10DefaultsToClose() throws {
        let (plain, _) = try request("GET / HTTP/1.0\r\n\r\n")
        #expect(plain.version == .http10)
        #expect(!plain.wantsKeepAlive)
        let (keep, _) = try request("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        #expect(keep.wantsKeepAlive)
        let (close, _) = try request("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(!close.wantsKeepAlive)
    }

    @Test func absoluteFormBecomesAPath() throws {
        let (req, _) = try request("GET http://example.com:8080/img/a.jpg?w=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(req.target == "/img/a.jpg?w=1")
        let (bare, _) = try request("GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(bare.target == "/")
    }

    @Test func contentLengthIsReadAndChecked() throws {
        let (req, _) = try request("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n")
        #expect(req.contentLength == 12)
        let (same, _) = try request("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n")
        #expect(same.contentLength == 5)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n") == 400)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n") == 400)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") == 400)
        let (chunked, _) = try request("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(chunked.hasTransferEncoding)
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\n\r\n",                          // no Host
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",     // two Hosts
        "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",               // double space
        "GET / HTTP/1.1 \r\nHost: x\r\n\r\n",               // trailing space
        "GET / HTTP/1.1\nHost: x\r\n\r\n",                  // bare LF
        "GET / HTTP/1.1\r\nHost: x\n\r\n",                  // bare LF in a field
        "GET / HTTP/1.1\r\nHost : x\r\n\r\n",               // space before colon
        "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",     // obs-fold
        "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{0}b\r\n\r\n",  // NUL in value
        "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{7F}b\r\n\r\n", // DEL in value
        "GET / HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n",     // empty name
        "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
        "G@T / HTTP/1.1\r\nHost: x\r\n\r\n",                // not a token
        "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n",             // fragment
        "GET img HTTP/1.1\r\nHost: x\r\n\r\n",              // not a path
        "GET * HTTP/1.1\r\nHost: x\r\n\r\n",                // * only with OPTIONS
        "GET / HTTX/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.10\r\nHost: x\r\n\r\n",
        "GET /\u{1}x HTTP/1.1\r\nHost: x\r\n\r\n",
        "\n\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n\r\r\n",
        "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n",            // a list is not a host
        "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n",             // nor is userinfo
        "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a:80x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a%zz\r\n\r\n",
        "GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n",  // two Hosts on 1.0 too
    ])
    func malformedRequestsAre400(_ text: String) {
        #expect(failureStatus(text) == 400, "\(text.debugDescription)")
    }

    @Test(arguments: ["example.com", "example.com:8080", "127.0.0.1:80", "[::1]", "[::1]:8080", "xn--bcher-kva.example",
                      "a_b.local", "", "%41.example"])
    func hostsThatAreHostsAreAccepted(_ host: String) throws {
        let (req, _) = try request("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        #expect(req.headers["Host"] == host)
    }

    @Test func otherMajorVersionsAre505() {
        #expect(failureStatus("GET / HTTP/2.0\r\nHost: x\r\n\r\n") == 505)
    }

    @Test func longTargetsAre414() {
        let long = "/" + String(repeating: "a", count: 8192)
        #expect(failureStatus("GET \(long) HTTP/1.1\r\nHost: x\r\n\r\n") == 414)
        // Still arriving and already too long: no need to wait for the rest.
        #expect(failureStatus("GET \(long)aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 414)
        let fits = "/" + String(repeating: "a", count: 8191)
        if case .request(let req, _) = parse("GET \(fits) HTTP/1.1\r\nHost: x\r\n\r\n") {
            #expect(req.target.utf8.count == 8192)
        } else {
            Issue.record("a target of exactly 8192 bytes must be accepted")
        }
    }

    @Test func largeHeaderSectionsAre431() {
        let big = "X-Big: " + String(repeating: "b", count: 16400) + "\r\n"
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\n\(big)\r\n") == 431)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\n\(big)") == 431)
        let many = (0..<400).map { "X-\($0): \(String(repeating: "v", count: 40))\r\n" }.joined()
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\n\(many)\r\n") == 431)
    }

    // MARK: - Properties

    /// A valid request and the parts it must parse back to.
    struct Sample: Sendable, CustomStringConvertible {
        var method: String
        var target: String
        var version: String
        var headers: [(String, String)]
        var text: String { "\(method) \(target) \(version)\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n" }
        var description: String { text.debugDescription }
    }

    static let tchars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")
    static let hostChars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=")
    static let pathChars = Array("abcdefghijklmnopqrstuvwxyz0123456789-._~%/=&?+:@!$'()*,;")
    static let valueChars = Array("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t")

    static let samples = Generator<Sample, Shrink.None<Sample>> { rng in
        func pick(_ chars: [Character], _ range: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: range, using: &rng)).map { _ in chars.randomElement(using: &rng)! })
        }
        let method = ["GET", "HEAD", "POST", "OPTIONS", "X-Thing"].randomElement(using: &rng)!
        let target = "/" + pick(pathChars, 0...60)
        let version = Bool.random(using: &rng) ? "HTTP/1.1" : "HTTP/1.0"
        var headers: [(String, String)] = [("Host", "h" + pick(hostChars, 0...10))]
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            var name = pick(tchars, 1...12)
            if name.lowercased() == "host" || name.lowercased().hasPrefix("content-length") || name.lowercased() == "transfer-encoding" {
                name = "X" + name
            }
            var value = pick(valueChars, 0...40)
            while value.first == " " || value.first == "\t" { value.removeFirst() }
            while value.last == " " || value.last == "\t" { value.removeLast() }
            headers.append((name, value))
        }
        return Sample(method: method, target: target, version: version, headers: headers)
    }

    @Test func validRequestsParseToTheirParts() async {
        await propertyCheck(count: 400, input: Self.samples) { sample in
            let bytes = Array(sample.text.utf8)
            guard case .request(let req, let consumed) = RequestParser.parse(bytes) else {
                Issue.record("rejected \(sample)")
                return
            }
            #expect(consumed == bytes.count)
            #expect(req.method.token == sample.method)
            #expect(req.target == sample.target)
            #expect(req.headers.count == sample.headers.count)
            for (field, expected) in zip(req.headers.fields, sample.headers) {
                #expect(field.name == expected.0 && field.value == expected.1)
            }
        }
    }

    @Test func everyTruncationIsIncomplete() async {
        await propertyCheck(count: 150, input: Self.samples) { sample in
            let bytes = Array(sample.text.utf8)
            for cut in 0..<bytes.count {
                guard case .incomplete = RequestParser.parse(Array(bytes[0..<cut])) else {
                    Issue.record("prefix of \(cut) bytes of \(sample) was not incomplete")
                    return
                }
            }
        }
    }

    static let corruptions = Generator<(Sample, Int, UInt8), Shrink.None<(Sample, Int, UInt8)>> { rng in
        let sample = samples.run(using: &rng)
        let position = Int.random(in: 0..<sample.text.utf8.count, using: &rng)
        // LF inserted before the final LF still ends the head correctly; any other
        // insertion must be refused.
        let bytes: [UInt8] = position == sample.text.utf8.count - 1 ? [0x00, 0x01, 0x0D, 0x7F, 0x1B] : [0x00, 0x01, 0x0A, 0x0D, 0x7F, 0x1B]
        let byte = bytes.randomElement(using: &rng)!
        return (sample, position, byte)
    }

    @Test func aForbiddenByteAnywhereInTheHeadIsRejected() async {
        await propertyCheck(count: 600, input: Self.corruptions) { sample, position, byte in
            var bytes = Array(sample.text.utf8)
            bytes.insert(byte, at: position)
            switch RequestParser.parse(bytes) {
            case .failure(let failure):
                #expect(failure.status.code == 400)
            case .request(let req, _):
                Issue.record("accepted \(bytes) after inserting \(byte) at \(position): \(req)")
            case .incomplete:
                Issue.record("incomplete after inserting \(byte) at \(position) into \(sample)")
            }
        }
    }

    static let noise = Generator<[UInt8], Shrink.None<[UInt8]>> { rng in
        // Random bytes biased towards HTTP's own alphabet so parsing gets far.
        let alphabet = Array("GET /HTP1.0\r\n:Host: a-bc\t ".utf8) + [0, 0x7F, 0x80, 0xFF]
        return (0..<Int.random(in: 0...300, using: &rng)).map { _ in
            Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
        }
    }

    @Test func randomBytesNeverCrashAndAcceptedHeadsAreValid() async {
        await propertyCheck(count: 3000, input: Self.noise) { bytes in
            guard case .request(let req, let consumed) = RequestParser.parse(bytes) else { return }
            #expect(consumed <= bytes.count)
            #expect(Array(bytes[(consumed - 4)..<consumed]) == [13, 10, 13, 10])
            #expect(req.method.token.utf8.allSatisfy { Self.tchars.contains(Character(Unicode.Scalar($0))) })
            #expect(req.target.utf8.allSatisfy { $0 > 32 && $0 < 127 })
            for field in req.headers {
                #expect(!field.name.isEmpty)
                #expect(field.value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 32 && $0.value != 127) })
            }
        }
    }
}
