import HTTP
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// A Lorem Picsum URL, parsed once and checked (pure): which of Picsum's forms it is, and its
/// values. A bad value is a 400 naming it; a path of no Picsum form is nil (404).
enum PicsumTarget: Equatable, Sendable {
    /// Which image a URL names.
    typealias Pick = PicsumCatalog.Pick

    /// `/id/{id}/{size}`, `/id/{id}/{w}/{h}`: the image itself.
    case image(id: Int, PicsumVariant)
    /// `/{size}`, `/{w}/{h}` (at random, or `?image={id}`), `/seed/{seed}/{size}`,
    /// `/seed/{seed}/{w}/{h}`: a redirect to the chosen image's `/id/` URL.
    case redirect(Pick, PicsumVariant)
    /// `/id/{id}/info`, `/seed/{seed}/info`.
    case info(Pick)
    /// `/v2/list?page=&limit=`.
    case list(page: Int, limit: Int)

    static let listPath = "/v2/list"
    static let defaultLimit = 30
    static let maxLimit = 100

    /// `path` still percent-encoded; `largestSide` bounds a size.
    init?(path: Substring, query: QueryParameters, largestSide: Int) throws(ParameterError) {
        if path == Self.listPath {
            self = Self.list(query)
            return
        }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        switch segments.first {
        case "id"?:
            guard (3...4).contains(segments.count) else { return nil }
            let id = try Self.id(segments[1], parameter: "id")
            if segments.count == 3, segments[2] == "info" {
                self = .info(.id(id))
            } else {
                self = .image(id: id, try PicsumVariant(sizes: segments[2...], query: query, largestSide: largestSide))
            }
        case "seed"?:
            guard (3...4).contains(segments.count) else { return nil }
            let seed = try Self.seed(segments[1])
            if segments.count == 3, segments[2] == "info" {
                self = .info(.seed(seed))
            } else {
                self = .redirect(.seed(seed), try PicsumVariant(sizes: segments[2...], query: query, largestSide: largestSide))
            }
        default:
            guard Self.isRandomForm(segments) else { return nil }
            let variant = try PicsumVariant(sizes: segments[...], query: query, largestSide: largestSide)
            // The deprecated `?image={id}` names the image instead of drawing one.
            if let image = query.pairs.first(where: { $0.name == "image" }) {
                self = .redirect(.id(try Self.id(Substring(image.value), parameter: "image")), variant)
            } else {
                self = .redirect(.random, variant)
            }
        }
    }

    /// `/{size}` and `/{w}/{h}`: one or two segments, the first starting with a digit (so a
    /// bad size such as `/10/0x` is a 400 naming it, and any other word stays a 404).
    static func isRandomForm(_ segments: [Substring]) -> Bool {
        guard (1...2).contains(segments.count), let first = segments[0].utf8.first else { return false }
        return first >= 0x30 && first <= 0x39
    }

    static func id(_ text: Substring, parameter: String) throws(ParameterError) -> Int {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let id = Int(text) else {
            throw ParameterError(parameter: parameter, detail: "\(parameter) must be an image id (a whole number), got '\(text)'")
        }
        return id
    }

    /// Any text, percent-decoded (as given when it is not valid UTF-8 once decoded).
    static func seed(_ text: Substring) throws(ParameterError) -> String {
        guard !text.isEmpty else { throw ParameterError(parameter: "seed", detail: "seed must not be empty") }
        guard text.utf8.contains(UInt8(ascii: "%")), let bytes = PercentCoding.decode(text),
              let decoded = String(validating: bytes, as: UTF8.self) else { return String(text) }
        return decoded
    }

    /// Paging as Picsum reads it, forgiving: a missing, malformed or small `limit` is 30, a
    /// large one 100; a missing, malformed or small `page` is 1.
    static func list(_ query: QueryParameters) -> PicsumTarget {
        let page = query.pairs.first { $0.name == "page" }.flatMap { Int($0.value) }.map { max(1, $0) } ?? 1
        var limit = query.pairs.first { $0.name == "limit" }.flatMap { Int($0.value) } ?? defaultLimit
        if limit < 1 { limit = defaultLimit }
        return .list(page: min(page, 1_000_000_000), limit: min(limit, maxLimit))
    }
}
