import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// `POST /v1/purge?path=...` or `?url=...`: removes a source's variants (and, for a remote
/// source or an S3 library's image, its original) from both cache tiers, and answers how many
/// entries went. Only with `Authorization: Bearer <admin.token>`; without a configured token
/// the route does not exist.
struct PurgeRoute: Sendable {
    let token: [UInt8]
    let thumbnails: ThumbnailService
    let originals: RemoteOriginals?
    /// The folder or the bucket: names a path's variants, and holds an S3 original.
    let library: any LibraryBackend

    /// A missing or wrong token.
    struct Unauthorized: HTTPProblem {
        var problem: ProblemDetails { ProblemDetails(.unauthorized, detail: "purging needs Authorization: Bearer with the admin token") }
        var fields: [(name: HTTPFieldName, value: String)] { [(.wwwAuthenticate, "Bearer realm=\"thumbd\"")] }
    }

    enum Target: Equatable {
        case library(LibraryPath)
        case remote(String)
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            try authorize(request)
            let target = try Self.target(try QueryParameters(parsing: request.query))
            let accepted = thumbnails.pool.submit { [thumbnails, originals, library] in
                let removed: Int
                switch target {
                case .library(let path):
                    removed = thumbnails.store.purge(prefix: library.sourceName(path).keyPrefix) + library.forget(path)
                case .remote(let url):
                    removed = thumbnails.store.purge(prefix: SourceName.remote(url).keyPrefix)
                        + (originals?.forget(url) ?? 0)
                }
                var headers = HTTPHeaders()
                headers.add(.cacheControl, "no-store")
                responder.respond(HTTPResponse(status: .ok, contentType: "application/json", body: JSONBody.encode(["removed": removed]),
                                               headers: headers))
            }
            if !accepted { throw Overloaded() }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// `Bearer <token>`, compared in constant time.
    private func authorize(_ request: HTTPRequest) throws(Unauthorized) {
        guard let field = request.headers[.authorization] else { throw Unauthorized() }
        let value = field.trimmingOWS()
        guard value.count > 7, value.prefix(7).equalsIgnoringASCIICase("Bearer ") else { throw Unauthorized() }
        guard ConstantTime.equal(Array(value.dropFirst(7).trimmingOWS().utf8), token) else { throw Unauthorized() }
    }

    /// Exactly one of `path` and `url`.
    static func target(_ query: QueryParameters) throws -> Target {
        try query.refuse(allBut: ["path", "url"])
        let paths = query.pairs.filter { $0.name == "path" }, urls = query.pairs.filter { $0.name == "url" }
        switch (paths.count, urls.count) {
        case (1, 0):
            return .library(try LibraryPath(encoded: Substring(PercentCoding.encode(paths[0].value, keepingSlashes: true))))
        case (0, 1):
            _ = try OriginFetcher.host(of: urls[0].value)
            return .remote(urls[0].value)
        case (0, 0):
            throw ParameterError(parameter: "path", detail: "give path (a library image) or url (a remote original)")
        default:
            throw ParameterError(parameter: paths.count > 1 ? "path" : "url",
                                 detail: "give exactly one of path and url, once")
        }
    }
}
