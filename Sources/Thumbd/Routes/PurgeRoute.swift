import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// `POST /v1/purge?path=...`, `?folder=...` or `?url=...`: the source's (or every library
/// source's under the folder) purge (`SourcePurge`) run on a
/// worker, and its outcome answered: how many entries went from this replica's tiers; with a
/// shared tier, its objects of the source and which live replicas have confirmed within a
/// short wait and which have not yet; with a CDN in front, whether it dropped the source's tag.
/// Only with `Authorization: Bearer <admin.token>`; without a configured token the route does
/// not exist.
struct PurgeRoute: Sendable {
    let token: [UInt8]
    let purge: SourcePurge
    let pool: WorkerPool

    /// The shared tier's store refused the purge (its keys, the bucket's policy): 502 naming
    /// S3's code, with what went from this replica's own tiers.
    struct SharedTierRefusal: HTTPProblem {
        let error: S3Error
        let removed: Int
        let cdn: CDNPurgeOutcome?

        var problem: ProblemDetails {
            var problem = error.problem
            problem.detail = "the shared cache tier's store refused the purge (\(error.refusalText)); this replica's tiers were purged"
                + (cdn.map { $0.purged ? ", and the CDN's" : ", not the CDN's (\($0.failure?.text ?? ""))" } ?? "")
            problem.extensions.append(("removed", String(removed)))
            return problem
        }
    }

    /// A missing or wrong token.
    struct Unauthorized: HTTPProblem {
        var problem: ProblemDetails { ProblemDetails(.unauthorized, detail: "purging needs Authorization: Bearer with the admin token") }
        var fields: [(name: HTTPFieldName, value: String)] { [(.wwwAuthenticate, "Bearer realm=\"thumbd\"")] }
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            try authorize(request)
            let target = try Self.target(try QueryParameters(parsing: request.query))
            let accepted = pool.submit { [purge] in
                responder.respond(Self.response(purge.run(target)))
            }
            if !accepted { throw Overloaded() }
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// The outcome as JSON, or the shared tier's refusal as a problem.
    static func response(_ outcome: PurgeOutcome) -> HTTPResponse {
        var answer = Answer(removed: outcome.removed, cdn: outcome.cdn.map(Answer.CDN.init))
        switch outcome.cluster {
        case .refused(let error): return SharedTierRefusal(error: error, removed: outcome.removed, cdn: outcome.cdn).response
        case .reached(let shared, let replicas):
            answer.shared = shared
            answer.replicas = .init(confirmed: replicas.confirmed, pending: replicas.pending,
                                    unpublished: replicas.unpublished ? true : nil)
        case nil: break
        }
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-store")
        return HTTPResponse(status: .ok, contentType: "application/json", body: JSONBody.encode(answer), headers: headers)
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

        /// What the CDN in front said: `purged` or `failed` (with why), the tags asked, and the
        /// requests sent, retries counted.
        struct CDN: Encodable {
            var status: String
            var tags: [String]
            var requests: Int
            var detail: String?

            init(_ outcome: CDNPurgeOutcome) {
                status = outcome.purged ? "purged" : "failed"
                tags = outcome.tags
                requests = outcome.requests
                detail = outcome.failure?.text
            }
        }

        var removed: Int
        var shared: Int?
        var replicas: Replicas?
        var cdn: CDN?

        init(removed: Int, cdn: CDN?) {
            self.removed = removed
            self.cdn = cdn
        }
    }

    /// `Bearer <token>`, compared in constant time.
    private func authorize(_ request: HTTPRequest) throws(Unauthorized) {
        guard let field = request.headers[.authorization] else { throw Unauthorized() }
        let value = field.trimmingOWS()
        guard value.count > 7, value.prefix(7).equalsIgnoringASCIICase("Bearer ") else { throw Unauthorized() }
        guard ConstantTime.equal(Array(value.dropFirst(7).trimmingOWS().utf8), token) else { throw Unauthorized() }
    }

    /// Exactly one of `path`, `url` and `folder`.
    static func target(_ query: QueryParameters) throws -> PurgeTarget {
        let names = ["path", "url", "folder"]
        try query.refuse(allBut: Set(names))
        let given = query.pairs.filter { names.contains($0.name) }
        guard given.count == 1, let only = given.first else {
            throw ParameterError(parameter: names.first { name in given.contains { $0.name == name } } ?? "path", detail: given.isEmpty
                ? "give path (a library image), folder (every image under a library folder) or url (a remote original)"
                : "give exactly one of path, folder and url, once")
        }
        func libraryPath(_ value: String) throws -> LibraryPath {
            try LibraryPath(encoded: Substring(PercentCoding.encode(value, keepingSlashes: true)))
        }
        switch only.name {
        case "path": return .library(try libraryPath(only.value))
        case "url":
            _ = try OriginFetcher.host(of: only.value)
            return .remote(only.value)
        default: return .folder(try libraryPath(only.value.hasSuffix("/") ? String(only.value.dropLast()) : only.value))
        }
    }
}
