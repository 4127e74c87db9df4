/// Parses an HTTP/1.x request head (RFC 9112) out of a byte buffer. Pure: no I/O, no state.
///
/// Strict where leniency would let two parsers disagree about where a request ends
/// (request smuggling): lines end in CRLF, no obs-fold, no white space before the colon,
/// one Content-Length value, no control characters.
public enum RequestParser {
    public struct Limits: Sendable, Equatable {
        /// Longest request target accepted; longer gives 414.
        public var maxTargetBytes: Int
        /// Largest header section (request line excluded) accepted; larger gives 431.
        public var maxHeaderBytes: Int

        public init(maxTargetBytes: Int = 8192, maxHeaderBytes: Int = 16384) {
            self.maxTargetBytes = maxTargetBytes
            self.maxHeaderBytes = maxHeaderBytes
        }
    }

    public struct Failure: Error, Sendable, Equatable {
        public var status: HTTPStatus
        public var detail: String
    }

    public enum Outcome: Sendable {
        /// More bytes are needed.
        case incomplete
        /// A complete head; `consumed` bytes (leading blank lines included) belong to it.
        case request(HTTPRequest, consumed: Int)
        /// The bytes cannot become a valid request; answer `status` and close.
        case failure(Failure)
    }

    /// Leading empty lines tolerated before a request line (RFC 9112 §2.2).
    static let maxLeadingBlankLines = 8
    static let maxMethodAndVersionBytes = 64

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) -> Outcome {
        bytes.withUnsafeBufferPointer { parse($0, limits: limits) }
    }

    public static func parse(_ buf: UnsafeBufferPointer<UInt8>, limits: Limits = Limits()) -> Outcome {
        var pos = 0
        var blank = 0
        while pos < buf.count {
            if buf[pos] == lf { return fail(.badRequest, "bare LF before the request line") }
            guard buf[pos] == cr else { break }
            guard pos + 1 < buf.count else { return .incomplete }
            guard buf[pos + 1] == lf else { return fail(.badRequest, "bare CR before the request line") }
            pos += 2
            blank += 1
            if blank > maxLeadingBlankLines { return fail(.badRequest, "too many empty lines before the request line") }
        }
        if pos >= buf.count { return .incomplete }

        // Request line.
        let lineStart = pos
        let maxLine = limits.maxTargetBytes + maxMethodAndVersionBytes
        guard let lineEnd = findLF(buf, from: lineStart, limit: maxLine + 2) else {
            if buf.count - lineStart > maxLine + 1 {
                return checkOverlongLine(buf, from: lineStart, limits: limits)
            }
            return .incomplete
        }
        guard lineEnd > lineStart, buf[lineEnd - 1] == cr else { return fail(.badRequest, "request line must end in CRLF") }
        let requestLine: (HTTPMethod, String, HTTPVersion)
        switch parseRequestLine(buf, lineStart, lineEnd - 1, limits: limits) {
        case .success(let parsed): requestLine = parsed
        case .failure(let failure): return .failure(failure)
        }
        pos = lineEnd + 1

        // Header fields.
        let headerStart = pos
        var headers = HTTPHeaders()
        while true {
            let budgetEnd = headerStart + limits.maxHeaderBytes
            guard let end = findLF(buf, from: pos, limit: max(0, budgetEnd - pos) + 1) else {
                if buf.count > budgetEnd { return fail(.requestHeaderFieldsTooLarge, "the header section is over \(limits.maxHeaderBytes) bytes") }
                return .incomplete
            }
            if end + 1 - headerStart > limits.maxHeaderBytes + 2 {
                return fail(.requestHeaderFieldsTooLarge, "the header section is over \(limits.maxHeaderBytes) bytes")
            }
            guard end > pos, buf[end - 1] == cr else { return fail(.badRequest, "header line must end in CRLF") }
            if end - 1 == pos { pos = end + 1; break }  // empty line: end of the head
            switch parseField(buf, pos, end - 1) {
            case .success(let field): headers.add(HTTPFieldName(field.0), field.1)
            case .failure(let failure): return .failure(failure)
            }
            pos = end + 1
        }

        let (method, target, version) = requestLine
        var request = HTTPRequest(method: method, target: target, version: version, headers: headers)
        if let failure = checkSemantics(&request) { return .failure(failure) }
        return .request(request, consumed: pos)
    }

    // MARK: - Pieces

    private static let cr: UInt8 = 13, lf: UInt8 = 10, sp: UInt8 = 32, htab: UInt8 = 9

    private static func fail(_ status: HTTPStatus, _ detail: String) -> Outcome {
        .failure(Failure(status: status, detail: detail))
    }

    private static func findLF(_ buf: UnsafeBufferPointer<UInt8>, from: Int, limit: Int) -> Int? {
        let end = min(buf.count, from + limit)
        var i = from
        while i < end {
            if buf[i] == lf { return i }
            i += 1
        }
        return nil
    }

    /// An unterminated line past the limit: 414 if it still looks like a request line
    /// with a long target, 400 if it is not a request line at all.
    private static func checkOverlongLine(_ buf: UnsafeBufferPointer<UInt8>, from: Int, limits: Limits) -> Outcome {
        var i = from
        while i < buf.count, isTokenChar(buf[i]) { i += 1 }
        guard i > from, i < buf.count, buf[i] == sp else { return fail(.badRequest, "malformed request line") }
        return fail(.uriTooLong, "the request target is over \(limits.maxTargetBytes) bytes")
    }

    private static func parseRequestLine(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
                                         limits: Limits) -> Result<(HTTPMethod, String, HTTPVersion), Failure> {
        func bad(_ detail: String) -> Result<(HTTPMethod, String, HTTPVersion), Failure> {
            .failure(Failure(status: .badRequest, detail: detail))
        }
        var i = start
        while i < end, isTokenChar(buf[i]) { i += 1 }
        guard i > start, i < end, buf[i] == sp else { return bad("malformed method in the request line") }
        let method = string(buf, start, i)
        let targetStart = i + 1
        i = targetStart
        while i < end, buf[i] > sp, buf[i] < 0x7F { i += 1 }
        guard i > targetStart, i < end, buf[i] == sp else { return bad("malformed request target") }
        if i - targetStart > limits.maxTargetBytes {
            return .failure(Failure(status: .uriTooLong, detail: "the request target is over \(limits.maxTargetBytes) bytes"))
        }
        var target = string(buf, targetStart, i)
        let versionStart = i + 1
        guard end - versionStart == 8,
              buf[versionStart] == 0x48, buf[versionStart + 1] == 0x54, buf[versionStart + 2] == 0x54,
              buf[versionStart + 3] == 0x50, buf[versionStart + 4] == 0x2F,
              isDigit(buf[versionStart + 5]), buf[versionStart + 6] == 0x2E, isDigit(buf[versionStart + 7])
        else { return bad("malformed HTTP version") }
        guard buf[versionStart + 5] == 0x31 else {
            return .failure(Failure(status: .httpVersionNotSupported, detail: "only HTTP/1.0 and HTTP/1.1 are served"))
        }
        let version: HTTPVersion = buf[versionStart + 7] == 0x30 ? .http10 : .http11

        if target.utf8.contains(0x23) { return bad("a request target cannot contain '#'") }
        if target.utf8.first == 0x2F {
            // origin-form: the usual case
        } else if let path = absoluteFormPath(target) {
            target = path
        } else if target == "*" && method == "OPTIONS" {
            // asterisk-form
        } else {
            return bad("the request target must be a path, an absolute URL, or * for OPTIONS")
        }
        return .success((HTTPMethod(token: method), target, version))
    }

    /// `http://host[:port]/path?q` becomes `/path?q` (RFC 9112 §3.2.2: servers must accept it).
    private static func absoluteFormPath(_ target: String) -> String? {
        let lower = target.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            rest = target.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            rest = target.dropFirst(8)
        } else {
            return nil
        }
        guard let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
            return rest.isEmpty ? nil : "/"
        }
        if authorityEnd == rest.startIndex { return nil }
        let tail = rest[authorityEnd...]
        return tail.first == "?" ? "/" + tail : String(tail)
    }

    private static func parseField(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Result<(String, String), Failure> {
        if buf[start] == sp || buf[start] == htab {
            return .failure(Failure(status: .badRequest, detail: "obsolete line folding in a header field"))
        }
        var i = start
        while i < end, isTokenChar(buf[i]) { i += 1 }
        guard i > start, i < end, buf[i] == 0x3A else {
            return .failure(Failure(status: .badRequest, detail: "malformed header field name"))
        }
        let name = string(buf, start, i)
        var valueStart = i + 1
        var valueEnd = end
        while valueStart < valueEnd, buf[valueStart] == sp || buf[valueStart] == htab { valueStart += 1 }
        while valueEnd > valueStart, buf[valueEnd - 1] == sp || buf[valueEnd - 1] == htab { valueEnd -= 1 }
        var j = valueStart
        while j < valueEnd {
            let c = buf[j]
            if (c < sp && c != htab) || c == 0x7F {
                return .failure(Failure(status: .badRequest, detail: "control character in the \(name) header"))
            }
            j += 1
        }
        return .success((name, string(buf, valueStart, valueEnd)))
    }

    /// Framing and host rules that depend on the whole head.
    private static func checkSemantics(_ request: inout HTTPRequest) -> Failure? {
        let hosts = request.headers.count(of: .host)
        if hosts > 1 || (request.version == .http11 && hosts == 0) {
            return Failure(status: .badRequest, detail: "a request needs exactly one Host header (HTTP/1.0: at most one)")
        }
        if let host = request.headers[.host], !isValidHost(host.utf8) {
            return Failure(status: .badRequest, detail: "the Host header is not a host name or address with an optional port")
        }
        let lengths = request.headers.contains(.contentLength) ? request.headers.values(.contentLength) : []
        if request.headers.contains(.transferEncoding) {
            if !lengths.isEmpty { return Failure(status: .badRequest, detail: "both Transfer-Encoding and Content-Length") }
            request.hasTransferEncoding = true
        }
        if !lengths.isEmpty {
            // Repeated values are allowed only when identical (RFC 9112 §6.3).
            let items = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingOWS() } }
            guard let first = items.first, items.allSatisfy({ $0 == first }), let length = parseLength(first)
            else { return Failure(status: .badRequest, detail: "invalid Content-Length") }
            request.contentLength = length
        }
        return nil
    }

    /// `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2): an IP literal in brackets,
    /// or a reg-name of unreserved, sub-delims and %XX; empty is allowed. Refuses what a
    /// Host must not hold (spaces, `@`, a list, a path), which proxies and caches could
    /// otherwise read differently.
    static func isValidHost(_ host: String.UTF8View) -> Bool {
        var bytes = Array(host)[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > bytes.startIndex + 1 else { return false }
            let literal = bytes[(bytes.startIndex + 1)..<close]
            guard literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
            bytes = bytes[(close + 1)...]
            if bytes.isEmpty { return true }
            guard bytes.first == UInt8(ascii: ":") else { return false }
            return bytes.dropFirst().count <= 5 && bytes.dropFirst().allSatisfy(isDigit)
        }
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            let port = bytes[(colon + 1)...]
            guard port.count <= 5, port.allSatisfy(isDigit) else { return false }
            bytes = bytes[..<colon]
        }
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let c = bytes[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) else { return false }
                i += 3
                continue
            }
            guard isRegNameChar(c) else { return false }
            i += 1
        }
        return true
    }

    @inline(__always) static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// unreserved and sub-delims of RFC 3986.
    @inline(__always) static func isRegNameChar(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="): true
        default: false
        }
    }

    private static func parseLength(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 18, s.utf8.allSatisfy(isDigit) else { return nil }
        return Int(s)
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// tchar from RFC 9110 §5.6.2.
    @inline(__always) static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    private static func string(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buf[start..<end]), as: UTF8.self)
    }
}
