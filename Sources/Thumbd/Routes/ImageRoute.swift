import Cache
import Foundation
import HTTP
import Imaging

/// `GET /img/{path}`: with no transform parameters the library file byte for byte (answered
/// on the event loop: it is a cache lookup); with them a thumbnail, made on the worker pool.
struct ImageRoute {
    let files: LibraryFileCache
    let config: ThumbdConfig
    let pool: WorkerPool
    let counter: Counter

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let query: QueryParameters
        do {
            query = try QueryParameters(parsing: request.query)
        } catch {
            return responder.respond(ProblemDetails(.badRequest, detail: "malformed query string").response)
        }
        let path: LibraryPath
        do {
            path = try LibraryPath(encoded: request.path.dropFirst("/img/".count))
        } catch .malformedEncoding {
            return responder.respond(ProblemDetails(.badRequest, detail: "the image path is not valid percent-encoded UTF-8").response)
        } catch {
            return responder.respond(Self.notFound)
        }
        // Parameters are checked before the file system is touched.
        var transform: TransformRequest?
        if TransformRequest.asksForTransform(query) {
            do {
                transform = try TransformRequest(query: query, presets: config.presets, limits: config.limits,
                                                 defaultQuality: config.output.quality)
            } catch {
                return responder.respond(ProblemDetails(.badRequest, detail: error.detail, extensions: [("parameter", error.parameter)]).response)
            }
        }
        let entry: LibraryFileCache.Entry
        do {
            entry = try files.lookup(path)
        } catch .notAnImage {
            return responder.respond(ProblemDetails(.unsupportedMediaType, detail: "\(path) is not an image format thumbd can read").response)
        } catch {
            return responder.respond(Self.notFound)
        }
        guard let transform else {
            return responder.respond(original(entry).response(to: request))
        }
        if entry.file.size > Int64(config.limits.maxSourceBytes) {
            return responder.respond(ProblemDetails(.contentTooLarge,
                detail: "the source is \(entry.file.size) bytes, over the limit of \(config.limits.maxSourceBytes)").response)
        }
        let accept = request.headers["Accept"]
        let accepted = pool.submit { [config, counter] in
            // The client may have left while this waited in the queue.
            guard !responder.isCancelled else { return }
            let result = Self.thumbnail(entry, transform, accept: accept, config: config)
            counter.increment()
            responder.respond(result.response(to: request))
        }
        if !accepted {
            var response = ProblemDetails(.serviceUnavailable, detail: "too many transforms are waiting; try again shortly").response
            response.headers.set("Retry-After", "1")
            responder.respond(response)
        }
    }

    private func original(_ entry: LibraryFileCache.Entry) -> Representation {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", config.output.cacheControl)
        return Representation(contentType: entry.file.format.mediaType, body: entry.body, etag: entry.etag,
                              lastModified: entry.lastModified, headers: headers)
    }

    /// Runs on a worker thread. Failures come back as a problem representation.
    static func thumbnail(_ entry: LibraryFileCache.Entry, _ transform: TransformRequest, accept: String?,
                          config: ThumbdConfig) -> ProblemOr<Representation> {
        let start = MonotonicClock.now()
        guard let data = entry.content ?? entry.readAll() else {
            return .problem(ProblemDetails(.notFound, detail: "the image changed while it was being read"))
        }
        let readDone = MonotonicClock.now()
        let output: ImageTransformer.Output
        do {
            let header = try ImageTransformer.checkedHeader(data, maxPixels: config.limits.maxSourcePixels)
            var options = transform.options.resolved(for: entry.file.format)
            if transform.negotiatesFormat {
                options.format = FormatNegotiation.choose(accept: accept, hasAlpha: header.hasAlpha)
                options.normalize()
            }
            output = try ImageTransformer.transform(data, header: header, options: options)
            let done = MonotonicClock.now()
            var headers = HTTPHeaders()
            headers.add("Cache-Control", config.output.cacheControl)
            if transform.negotiatesFormat { headers.add("Vary", "Accept") }
            headers.add("X-Cache", "miss")
            headers.add("Server-Timing", String(format: "read;dur=%.1f, transform;dur=%.1f",
                                                (readDone - start) * 1000, (done - readDone) * 1000))
            // Same source version and same normalized options: same ETag, on any replica, after any restart.
            let etag = EntityTag("t" + StableHash.hex128(entry.etag.opaque + "|" + options.canonicalText))
            return .value(Representation(contentType: output.format.mediaType, body: .bytes(output.bytes), etag: etag,
                                         lastModified: entry.lastModified, headers: headers))
        } catch {
            return .problem(Self.problem(for: error))
        }
    }

    static func problem(for error: ImagingError) -> ProblemDetails {
        switch error {
        case .unsupportedFormat: ProblemDetails(.unsupportedMediaType, detail: error.description)
        case .tooManyPixels, .undecodable: ProblemDetails(.unprocessableContent, detail: error.description)
        case .encodingFailed: ProblemDetails(.internalServerError, detail: error.description)
        }
    }

    static let notFound = ProblemDetails(.notFound, detail: "no such image").response
}

/// A result that is either a value to represent or a problem to report.
enum ProblemOr<Value> {
    case value(Value)
    case problem(ProblemDetails)
}

extension ProblemOr where Value == Representation {
    func response(to request: HTTPRequest) -> HTTPResponse {
        switch self {
        case .value(let representation): representation.response(to: request)
        case .problem(let problem): problem.response
        }
    }
}
