import HTTP
import ThumbdCore

/// What a request's path names, matched once: the app dispatches on it, and request metrics
/// and the access log are labelled by it, so they cannot disagree.
enum Route: Int, CaseIterable, Sendable {
    case image, proxy, listing, gallery, health, metrics, notFound
    /// `OPTIONS *`: the server as a whole.
    case server
    case imageInfo, remoteInfo, purge, openAPI
    /// The Lorem Picsum-compatible routes (`Route+Picsum.swift`), matched only where none of
    /// the above is.
    case picsumImage, picsumRedirect, picsumInfo, picsumList

    init(path: Substring) {
        if path.utf8.starts(with: ImageRoute.pathPrefix.utf8) {
            self = .image
            return
        }
        if path.utf8.starts(with: ImageInfoRoute.pathPrefix.utf8), path.utf8.count > ImageInfoRoute.pathPrefix.utf8.count {
            self = .imageInfo
            return
        }
        switch path {
        case "/proxy": self = .proxy
        case "/v1/images": self = .listing
        case "/": self = .gallery
        case "/health": self = .health
        case "/metrics": self = .metrics
        case "*": self = .server
        case "/v1/info": self = .remoteInfo
        case "/v1/purge": self = .purge
        case "/openapi.yaml": self = .openAPI
        default: self = Self.picsum(path: path) ?? .notFound
        }
    }

    /// The route of a finished exchange, from the tag the app gave its responder.
    init?(tag: Int) {
        self.init(rawValue: tag)
    }

    /// Its label in metrics and the access log: a small fixed set, never the path itself
    /// (that would explode the number of series). `invalid` names requests that never
    /// reached a route (the head could not be parsed).
    var label: String {
        switch self {
        case .image: "img"
        case .proxy: "proxy"
        case .listing: "images"
        case .gallery: "gallery"
        case .health: "health"
        case .metrics: "metrics"
        case .notFound: "not_found"
        case .server: "server"
        case .imageInfo: "image_info"
        case .remoteInfo: "remote_info"
        case .purge: "purge"
        case .openAPI: "openapi"
        case .picsumImage: "picsum_image"
        case .picsumRedirect: "picsum_redirect"
        case .picsumInfo: "picsum_info"
        case .picsumList: "picsum_list"
        }
    }

    static let invalidLabel = "invalid"

    /// The methods the route serves (`Allow` on a 405).
    var methods: String { self == .purge ? "POST" : "GET, HEAD" }

    func allows(_ method: HTTPMethod) -> Bool {
        switch method {
        case .get, .head: self != .purge
        case .other(let token): self == .purge && token == "POST"
        }
    }

    /// Every label, in the order of the indexes metrics are recorded under: the routes',
    /// then `invalid` (index `allCases.count`).
    static let metricLabels = allCases.map(\.label) + [invalidLabel]
}
