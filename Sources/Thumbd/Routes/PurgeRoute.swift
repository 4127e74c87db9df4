import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// `POST /v1/purge?path=...` or `?url=...`: removes a source's variants (and, for a remote
/// source or an S3 library's image, its original) from both local cache tiers, and answers
/// how many entries went. With a shared tier, also its objects of the source, and a record
/// that every other replica applies to its own tiers (`SharedPurges`): the answer says which
/// live replicas have confirmed within a short wait and which have not yet. Only with
/// `Authorization: Bearer <admin.token>`; without a configured token the route does not exist.
struct PurgeRoute: Sendable {
    let token: [UInt8]
    let removal: Removal
    /// Nil without a shared tier.
    let purges: SharedPurges?

    /// What a purge removes from this replica: the route's work, and what another replica's
    /// record asks of this one.
    struct Removal: Sendable {
        let thumbnails: ThumbnailService
        let originals: RemoteOriginals?
        /// The folder or the bucket: names a path's variants, and holds an S3 original.
        let library: any LibraryBackend

        /// The source's entries removed from the local tiers; how many went.
        func local(_ target: Target) -> Int {
            switch target {
            case .library(let path):
                thumbnails.store.purge(prefix: library.sourceName(path).keyPrefix) + library.forget(path)
            case .remote(let url):
                thumbnails.store.purge(prefix: SourceName.remote(url).keyPrefix) + (originals?.forget(url) ?? 0)
            }
        }

        /// The source's objects removed from the shared tier, or why they could not be; nil
        /// without a shared tier.
        func shared(_ target: Target) -> Result<Int, S3Error>? {
            thumbnails.store.shared?.removeAll(sourcePrefix: sourceName(target).keyPrefix)
        }

        func sourceName(_ target: Target) -> SourceName {
            switch target {
            case .library(let path): library.sourceName(path)
            case .remote(let url): SourceName.remote(url)
            }
        }

        /// A record another replica published, applied here (a record that does not parse is
        /// ignored: no replica publishes one).
        func apply(record text: String) {
            guard let query = try? QueryParameters(parsing: Substring(text)), let target = try? PurgeRoute.target(query) else { return }
            _ = local(target)
        }
    }

    /// The shared tier's store refused the purge (its keys, the bucket's policy): 502 naming
    /// S3's code, with what went from this replica's own tiers.
    struct SharedTierRefusal: HTTPProblem {
        let error: S3Error
        let removed: Int

        var problem: ProblemDetails {
            var problem = error.problem
            problem.detail = "the shared cache tier's store refused the purge (\(error.refusalText)); this replica's tiers were purged"
            problem.extensions.append(("removed", String(removed)))
            return problem
        }
    }

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
            let accepted = removal.thumbnails.pool.submit { [removal, purges] in
                let removed = removal.local(target)
                var answer = Answer(removed: removed)
                if let purges {
                    switch removal.shared(target) {
                    case .success(let count): answer.shared = count
                    case .failure(let error):
                        // A denial is the operator's to mend, and said as what it is; the
                        // local tiers are purged all the same.
                        if case .refused = error { return responder.respond(SharedTierRefusal(error: error, removed: removed).response) }
                    case nil: break
                    }
                    if let record = purges.publish(Self.record(target)) {
                        let confirmations = purges.confirmations(of: record, waitingUpTo: purges.interval * 2 + 1)
                        answer.replicas = .init(confirmed: confirmations.confirmed, pending: confirmations.pending)
                    } else {
                        answer.replicas = .init(confirmed: [purges.replica], pending: [], unpublished: true)
                    }
                }
                var headers = HTTPHeaders()
                headers.add(.cacheControl, "no-store")
                responder.respond(HTTPResponse(status: .ok, contentType: "application/json", body: JSONBody.encode(answer),
                                               headers: headers))
            }
            if !accepted { throw Overloaded() }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// The answer: entries removed here; with a shared tier, its objects removed (nil: the
    /// store could not be listed) and the replicas that confirmed.
    struct Answer: Encodable {
        struct Replicas: Encodable {
            var confirmed: [String]
            var pending: [String]
            /// The store did not take the record: the other replicas keep what they hold.
            var unpublished: Bool?
        }

        var removed: Int
        var shared: Int?
        var replicas: Replicas?
    }

    /// The record of a purge, as the other replicas read it back (`Removal.apply`).
    static func record(_ target: Target) -> String {
        switch target {
        case .library(let path): "path=" + PercentCoding.encode(path.value, keepingSlashes: true)
        case .remote(let url): "url=" + PercentCoding.encode(url, keepingSlashes: false)
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
