import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol

/// `GET /img/{path}`: with no transform parameters the library's original byte for byte; with
/// them a thumbnail, from the thumbnail service (a hit is answered here, on the event loop).
struct ImageRoute: Sendable {
    static let pathPrefix = "/img/"

    let targets: TargetMemo
    let authorization: TargetAuthorization
    let parser: TransformParser
    /// What the folder or the bucket resolves a path to, answered.
    let answers: LibraryAnswers

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do {
            let parsed: ParsedTarget
            if let memo = targets.get(request.target) {
                try authorization.stillValid(memo.expires)
                parsed = memo
            } else {
                parsed = try parse(request)
            }
            try answers.answer(request, path: parsed.path, transform: parsed.transform, memo: parsed.identities,
                               responder: responder)
        } catch {
            responder.respond(Problems.response(for: error))
        }
    }

    /// Validates the target (signature and expiry, query, path, parameters, in that order,
    /// before the file system is touched); only targets that pass are memoized, with their
    /// expiry, which is checked again on every use.
    private func parse(_ request: HTTPRequest) throws -> ParsedTarget {
        let expires = try authorization.check(request.target)
        let query = try QueryParameters(parsing: request.query)
        let path = try LibraryPath(encoded: request.path.dropFirst(Self.pathPrefix.count))
        let parsed = ParsedTarget(path: path, transform: try parser.transform(query), expires: expires)
        targets.put(request.target, parsed)
        return parsed
    }
}
