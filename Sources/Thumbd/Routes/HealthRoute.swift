import HTTP
import HTTPServer
import Synchronization
import ThumbdCore

/// `GET /health`: 200 while serving, 503 while draining, so balancers stop sending traffic.
struct HealthRoute: Sendable {
    let drain: DrainState

    /// The two bodies it ever sends, encoded once.
    private static let serving = JSONBody.encode(["status": "ok"])
    private static let draining = JSONBody.encode(["status": "draining"])

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-store")
        if drain.isDraining {
            return responder.respond(HTTPResponse(status: .serviceUnavailable, contentType: "application/json",
                                                  body: Self.draining, headers: headers))
        }
        responder.respond(HTTPResponse(status: .ok, contentType: "application/json", body: Self.serving, headers: headers))
    }
}
