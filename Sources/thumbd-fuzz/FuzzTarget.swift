import Cache
import Clocks
import HTTP
import Imaging
import Thumbd
import ThumbdCore
import ThumbdProtocol
import VectorPages
import Video

/// What the fuzzer feeds: each target takes arbitrary bytes, must never crash or hang, and
/// checks the invariants its parser promises.
enum FuzzTarget: String, CaseIterable {
    case requestParser = "request-parser"
    case rangeAndConditionals = "range-conditionals"
    case transformParameters = "transform-parameters"
    case configFile = "config-file"
    case diskEntry = "disk-entry"
    case webpContainer = "webp-container"
    case svgSource = "svg-source"
    case pdfSource = "pdf-source"
    case videoSource = "video-source"
    case renderFrames = "render-frames"

    func run(_ bytes: [UInt8]) {
        switch self {
        case .requestParser: Self.requestParser(bytes)
        case .rangeAndConditionals: Self.rangeAndConditionals(bytes)
        case .transformParameters: Self.transformParameters(bytes)
        case .configFile: Self.configFile(bytes)
        case .diskEntry: Self.diskEntry(bytes)
        case .webpContainer: Self.webpContainer(bytes)
        case .svgSource: Self.vectorSource(bytes, .svg)
        case .pdfSource: Self.vectorSource(bytes, .pdf)
        case .renderFrames: Self.renderFrames(bytes)
        case .videoSource: Self.videoSource(bytes)
        }
    }

    static func check(_ condition: Bool, _ what: @autoclosure () -> String) {
        if !condition { fatalError("invariant broken: \(what())") }
    }

    /// A head is parsed whole or reported incomplete or bad; what it consumed lies within
    /// the input; a parsed request has a target that starts with `/` (or is `*`).
    static func requestParser(_ bytes: [UInt8]) {
        switch RequestParser.parse(bytes) {
        case .request(let request, let consumed):
            check(consumed > 0 && consumed <= bytes.count, "consumed \(consumed) of \(bytes.count)")
            check(request.target.hasPrefix("/") || request.target == "*", "target \(request.target)")
            check(request.contentLength >= 0, "negative content length")
            _ = request.wantsKeepAlive
            _ = request.hasPreconditionsOrRange
        case .incomplete, .failure:
            break
        }
    }

    /// Lines are Range, If-Range, If-None-Match, If-Match, If-Modified-Since and
    /// If-Unmodified-Since values; the first byte sizes the representation. Any partial
    /// answer lies within the body, in order, without overlaps.
    static func rangeAndConditionals(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let lines = String(decoding: bytes.dropFirst(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let names: [HTTPFieldName] = [.range, .ifRange, .ifNoneMatch, .ifMatch, .ifModifiedSince, .ifUnmodifiedSince]
        var headers = HTTPHeaders()
        for (name, value) in zip(names, lines) where !value.isEmpty { headers.add(name, String(value)) }
        let length = Int(first) * 37
        let representation = Representation(contentType: "image/png", body: .bytes([UInt8](repeating: 7, count: length)),
                                            etag: EntityTag("abc"), lastModified: Timestamp(seconds: 1_700_000_000))
        let request = HTTPRequest(method: first & 1 == 0 ? .get : .head, target: "/x", headers: headers)
        if case .partial(let ranges) = representation.evaluate(request) {
            check(!ranges.isEmpty, "no ranges")
            for r in ranges { check(r.lowerBound < r.upperBound && r.upperBound <= UInt64(length), "range \(r) of \(length)") }
        }
        _ = representation.response(to: request)
        if let range = RangeRequest(parsing: String(lines.first ?? "")) {
            let resolved = range.resolve(length: UInt64(length))
            for (a, b) in zip(resolved, resolved.dropFirst()) { check(a.upperBound <= b.lowerBound || b.upperBound <= a.lowerBound, "overlap") }
        }
    }

    /// Any query: a 400 naming a parameter, or options within the limits whose canonical
    /// text parses back to the same options.
    static func transformParameters(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let query = try? QueryParameters(parsing: Substring(text)) else { return }
        let presets = ["thumb": "w=150&h=150&fit=cover", "hero": "w=1200&fm=webp"]
        do {
            guard TransformRequest.asksForTransform(query) else { return }
            let transform = try TransformRequest(query: query, presets: presets, maxDimension: 4096, defaultQuality: 80)
            let options = transform.options
            check((options.width ?? 1) >= 1 && (options.width ?? 1) <= 4096, "width \(String(describing: options.width))")
            check((options.height ?? 1) >= 1 && (options.height ?? 1) <= 4096, "height \(String(describing: options.height))")
            var again = options
            again.normalize()
            check(again == options, "not normalized: \(options)")
        } catch {
            check(!error.parameter.isEmpty, "a 400 that names no parameter")
        }
    }

    /// Any file: a configuration or an error naming a key; never a crash.
    static func configFile(_ bytes: [UInt8]) {
        var config = ThumbdConfig()
        do {
            _ = try ConfigLoader.applyFile(String(decoding: bytes, as: UTF8.self), named: "fuzz.yaml", to: &config)
        } catch {
            check(!error.key.isEmpty, "an error that names no key")
        }
    }

    /// Any file read back as an entry is refused or gives a variant whose bytes are in the
    /// file; an entry encoded from the input decodes to exactly what was encoded.
    static func diskEntry(_ bytes: [UInt8]) {
        let key = CacheKey("img|fuzz.jpg|o1-2|w=10")
        if case .success(let variant) = CacheEntryCodec.decode(bytes, expecting: key) {
            check(variant.bytes.count <= bytes.count, "a body longer than the file")
        }
        let variant = CachedVariant(bytes: bytes, contentType: "image/webp", etag: "t\(bytes.count)", lastModified: bytes.count)
        let decoded = CacheEntryCodec.decode(CacheEntryCodec.encode(key: key, variant: variant), expecting: key)
        check(decoded == .success(variant), "an encoded entry did not decode to itself")
        check(CacheEntryCodec.decode(CacheEntryCodec.encode(key: key, variant: variant), expecting: CacheKey("other")) == .failure(.otherKey),
              "an entry answered for another key")
    }

    /// Any bytes: the metadata filter never grows a file and leaves a non-RIFF input alone.
    static func webpContainer(_ bytes: [UInt8]) {
        let out = WebPContainer.removingMetadata(bytes)
        check(out.count <= bytes.count, "grew from \(bytes.count) to \(out.count)")
        if bytes.count < 12 || Array(bytes[0..<4]) != Array("RIFF".utf8) { check(out == bytes, "changed a non-RIFF input") }
    }

    /// Any bytes the server would take for a video (by its signature) through FFmpeg, under the
    /// limits a poster has: a frame within the pixel limit, or a problem; never a crash, a hang
    /// (3 s of wall clock at most) or a read outside the bytes.
    static func videoSource(_ bytes: [UInt8]) {
        guard ImageFormat.sniff(bytes)?.isVideo == true else { return }
        let limits = VideoDecoder.Limits(maxPixels: 4_000_000, maxDecodedFrames: 100, maxPackets: 2_000, maxDuration: 3600, maxSeconds: 3)
        let reader = VideoReader(bytes: bytes)
        guard let (frame, info) = try? VideoDecoder.frame(of: reader, at: .seconds(1), limits: limits) else { return }
        check(frame.width * frame.height <= limits.maxPixels && frame.rgb.count == frame.width * frame.height * 3,
              "a \(frame.width)x\(frame.height) frame of \(frame.rgb.count) bytes")
        check([0, 90, 180, 270].contains(info.rotation), "rotation \(info.rotation)")
        check(reader.bytesRead <= max(bytes.count, 1) * 64, "read \(reader.bytesRead) of \(bytes.count) bytes")
    }

    /// Any bytes: what thumbd takes for an SVG or PDF (by its signature) never reaches librsvg
    /// or poppler in this process, whatever follows (this target once found a 255-byte PDF that
    /// made poppler's header parse grow without end, and a blur SVG that drew for seconds in
    /// one call): they are drawn by renderer processes only. libvips may take the same bytes
    /// for another format (its ImageMagick loader, which stays blocked): refused too, or read
    /// as that format, never as a vector. Anything else is not this target's business.
    static func vectorSource(_ bytes: [UInt8], _ format: ImageFormat) {
        guard ImageFormat.sniff(bytes) == format else { return }
        if let header = try? ImageHeader.read(bytes) {
            check(!header.isVector, "a \(format) was read by \(header.loader)")
        }
        if let header = try? ImageHeader.read(bytes, page: 2) {
            check(!header.isVector, "a \(format)'s second page was read by \(header.loader)")
        }
    }

    /// Any bytes as the head of a renderer's request (what a renderer reads) and of its reply
    /// (what the server reads from a renderer that may be a document's): refused, or read with
    /// every length within its bound, and written back the same.
    static func renderFrames(_ bytes: [UInt8]) {
        let requestHead = Array(bytes.prefix(RenderRequest.headLength))
        if let (request, length) = RenderRequest.parse(head: requestHead) {
            check(length <= RenderRequest.maxDocument && request.page >= 1 && request.scale > 0, "a request of \(length) bytes")
            var again = request
            again.document = [UInt8](repeating: 0, count: min(length, 16))
            check(RenderRequest.parse(head: again.head)?.request == request, "a request head read back differently")
        }
        let replyHead = Array(bytes.prefix(RenderReply.headLength))
        if let (reply, loaderLength, bodyLength) = RenderReply.parse(head: replyHead, maxBody: 1 << 20) {
            check(bodyLength <= 1 << 20 && loaderLength <= 65_535, "a reply of \(bodyLength) bytes, a loader of \(loaderLength)")
            check(reply.body.isEmpty && reply.loader.isEmpty, "a head carried a body")
        }
    }
}
