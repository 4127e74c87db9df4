import HTTP
import Synchronization

/// `GET /health`: 200 while serving, 503 while draining, so balancers stop sending traffic.
struct HealthRoute: Sendable {
    let drain: DrainState

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        if drain.isDraining {
            return responder.respond(HTTPResponse(status: .serviceUnavailable, contentType: "application/json",
                                                  body: #"{"status":"draining"}"#, headers: headers))
        }
        responder.respond(HTTPResponse(status: .ok, contentType: "application/json", body: #"{"status":"ok"}"#, headers: headers))
    }
}
