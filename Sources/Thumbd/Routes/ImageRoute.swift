import Cache
import Foundation
import HTTP
import Imaging

/// `GET /img/{path}`: with no transform parameters the library file byte for byte; with them
/// a thumbnail: from the memory tier, else the disk tier (both answered on the event loop),
/// else made on the worker pool, once for all concurrent requests for it, and cached.
struct ImageRoute {
    let app: ThumbdApp
    var config: ThumbdConfig { app.config }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        if let parsed = app.targets.get(request.target) {
            return serve(request, responder, parsed)
        }
        guard let parsed = parse(request, responder) else { return }
        app.targets.put(request.target, parsed)
        serve(request, responder, parsed)
    }

    /// Validates the target; answers the error itself and returns nil when it is bad. Only
    /// targets that pass (signature included) are memoized.
    private func parse(_ request: HTTPRequest, _ responder: HTTPResponder) -> ParsedTarget? {
        if let refusal = app.signatureRefusal(request.target) {
            responder.respond(refusal)
            return nil
        }
        let query: QueryParameters
        do {
            query = try QueryParameters(parsing: request.query)
        } catch {
            responder.respond(ProblemDetails(.badRequest, detail: "malformed query string").response)
            return nil
        }
        let path: LibraryPath
        do {
            path = try LibraryPath(encoded: request.path.dropFirst("/img/".count))
        } catch .malformedEncoding {
            responder.respond(ProblemDetails(.badRequest, detail: "the image path is not valid percent-encoded UTF-8").response)
            return nil
        } catch {
            responder.respond(Self.notFound)
            return nil
        }
        // Parameters are checked before the file system is touched.
        switch app.transformRequest(query) {
        case .success(let transform):
            return ParsedTarget(path: path, transform: transform)
        case .failure(let refusal):
            responder.respond(refusal.response)
            return nil
        }
    }

    private func serve(_ request: HTTPRequest, _ responder: HTTPResponder, _ parsed: ParsedTarget) {
        let path = parsed.path
        let entry: LibraryFileCache.Entry
        do {
            entry = try app.files.lookup(path)
        } catch .notAnImage {
            return responder.respond(ProblemDetails(.unsupportedMediaType, detail: "\(path) is not an image format thumbd can read").response)
        } catch {
            return responder.respond(Self.notFound)
        }
        guard let transform = parsed.transform else {
            return responder.respond(entry.original.response(to: request))
        }
        if entry.file.size > Int64(config.limits.maxSourceBytes) {
            return responder.respond(ProblemDetails(.contentTooLarge,
                detail: "the source is \(entry.file.size) bytes, over the limit of \(config.limits.maxSourceBytes)").response)
        }
        thumbnail(request, responder, parsed: parsed, entry: entry, transform: transform)
    }

    // MARK: - Thumbnails

    private func thumbnail(_ request: HTTPRequest, _ responder: HTTPResponder, parsed: ParsedTarget,
                           entry: LibraryFileCache.Entry, transform: TransformRequest) {
        // fm=auto: AVIF or WebP from Accept; otherwise "legacy", which the source alone turns
        // into JPEG or PNG: the key is complete before anything is decoded.
        let negotiated = transform.negotiatesFormat ? FormatNegotiation.modernFormat(accept: request.headers["Accept"]) : nil
        let negotiatedTag = transform.negotiatesFormat ? negotiated?.rawValue ?? "legacy" : ""
        let (key, options) = parsed.key(version: entry.etag.opaque, format: negotiatedTag) {
            var options = transform.options.resolved(for: entry.file.format)
            var formatInKey = options.format?.rawValue ?? "source"
            if transform.negotiatesFormat {
                options.format = negotiated
                formatInKey = negotiatedTag
            }
            let key = CacheKey("img|\(parsed.path.value)|\(entry.etag.opaque)|\(options.canonicalText)|\(formatInKey)")
            return (key, options)
        }
        let vary = transform.negotiatesFormat
        if let hit = app.store.lookup(key, vary: vary) {
            return responder.respond(hit.response(to: request))
        }
        let waiter = Coalescer<ThumbnailOutcome>.Waiter(
            isCancelled: { responder.isCancelled },
            deliver: { [self] outcome in
                switch outcome {
                case .made(let variant, let timing):
                    responder.respond(representation(body: .bytes(variant.bytes), contentType: variant.contentType,
                                                     etag: variant.etag, xCache: "miss", timing: timing, vary: vary,
                                                     lastModified: entry.lastModified).response(to: request))
                case .failed(let response):
                    responder.respond(response)
                }
            })
        app.coalesced(key.hash, waiter) { [app, options] in
            let outcome = Self.make(entry, options: options, negotiate: transform.negotiatesFormat, app: app)
            if case .made(let variant, _) = outcome { app.store.store(key, variant) }
            return outcome
        }
    }

    /// A freshly made (or shared) variant's representation; `lastModified` is the source's,
    /// already formatted (the key covers the source version, so it is the variant's too).
    func representation(body: ResponseBody, contentType: String, etag: String, xCache: String, timing: String,
                        vary: Bool, lastModified: Timestamp?) -> Representation {
        VariantStore.representation(body: body, contentType: contentType, etag: etag, lastModified: lastModified,
                                    xCache: xCache, timing: timing, vary: vary, cacheControl: config.output.cacheControl)
    }

    /// Runs on a worker thread: reads the library file, then the shared transform step.
    static func make(_ entry: LibraryFileCache.Entry, options: TransformOptions, negotiate: Bool,
                     app: ThumbdApp) -> ThumbnailOutcome {
        let start = MonotonicClock.now()
        guard let data = entry.content ?? entry.readAll() else {
            return .failed(ProblemDetails(.notFound, detail: "the image changed while it was being read").response)
        }
        let read = MonotonicClock.now() - start
        return app.makeThumbnail(data, sourceVersion: entry.etag.opaque, lastModified: entry.file.modifiedSeconds,
                                 options: options, negotiate: negotiate, timing: "read;dur=" + ServerTiming.milliseconds(read))
    }

    /// The transform itself, shared by library and remote sources (through
    /// `ThumbdApp.makeThumbnail`, which also counts it). Runs on a worker thread.
    static func make(_ data: [UInt8], sourceVersion: String, lastModified: Int, options: TransformOptions, negotiate: Bool,
                     config: ThumbdConfig, timing: String) -> ThumbnailOutcome {
        let readDone = MonotonicClock.now()
        do {
            let header = try ImageTransformer.checkedHeader(data, maxPixels: config.limits.maxSourcePixels)
            var options = options
            if negotiate && options.format == nil {
                options.format = header.hasAlpha ? .png : .jpeg
                options.normalize()
            }
            let output = try ImageTransformer.transform(data, header: header, options: options)
            let done = MonotonicClock.now()
            // Same source version and same normalized options: same ETag, on any replica, after any restart.
            let etag = "t" + StableHash.hex128(sourceVersion + "|" + options.canonicalText)
            let variant = CachedVariant(bytes: output.bytes, contentType: output.format.mediaType, etag: etag,
                                        lastModified: lastModified)
            return .made(variant, timing: timing + ", transform;dur=" + ServerTiming.milliseconds(done - readDone))
        } catch {
            return .failed(problem(for: error).response)
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

/// What one transform gives every request waiting for it.
enum ThumbnailOutcome: Sendable {
    case made(CachedVariant, timing: String)
    /// The error response every waiter gets (a problem, possibly with Retry-After).
    case failed(HTTPResponse)
}
