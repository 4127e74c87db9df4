import HTTP
import Synchronization

/// The router: the one place that maps request targets to what answers them.
public final class ThumbdApp: HTTPHandler {
    public let config: ThumbdConfig
    let files: LibraryFileCache
    private let draining = Atomic<Bool>(false)

    public init(config: ThumbdConfig, library: ImageLibrary) {
        self.config = config
        self.files = LibraryFileCache(library: library)
    }

    /// While draining, /health answers 503 so load balancers stop sending traffic.
    public func beginDraining() { draining.store(true, ordering: .relaxed) }

    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        responder.respond(route(request))
    }

    func route(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.path
        if path == "/health" {
            return allowReadOnly(request) ?? health()
        }
        if path.utf8.starts(with: "/img/".utf8) {
            return allowReadOnly(request) ?? OriginalImageRoute(files: files, config: config).respond(to: request)
        }
        return ProblemDetails(.notFound, detail: "no route for \(request.path)").response
    }

    private func allowReadOnly(_ request: HTTPRequest) -> HTTPResponse? {
        switch request.method {
        case .get, .head: return nil
        case .other(let method):
            var response = ProblemDetails(.methodNotAllowed, detail: "\(method) is not allowed here; use GET or HEAD").response
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
    }

    private func health() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        if draining.load(ordering: .relaxed) {
            return HTTPResponse(status: .serviceUnavailable, contentType: "application/json", body: #"{"status":"draining"}"#, headers: headers)
        }
        return HTTPResponse(status: .ok, contentType: "application/json", body: #"{"status":"ok"}"#, headers: headers)
    }
}
