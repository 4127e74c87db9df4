import HTTP

/// `GET /img/{path}` with no transform parameters: the library file, byte for byte.
struct OriginalImageRoute {
    let files: LibraryFileCache
    let config: ThumbdConfig

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let parameters: QueryParameters
        do {
            parameters = try QueryParameters(parsing: request.query)
        } catch {
            return ProblemDetails(.badRequest, detail: "malformed query string").response
        }
        if let first = parameters.pairs.first {
            return ProblemDetails(.badRequest, detail: "unknown parameter '\(first.name)'",
                                  extensions: [("parameter", first.name)]).response
        }
        let path: LibraryPath
        do {
            path = try LibraryPath(encoded: request.path.dropFirst("/img/".count))
        } catch .malformedEncoding {
            return ProblemDetails(.badRequest, detail: "the image path is not valid percent-encoded UTF-8").response
        } catch {
            return notFound()
        }
        let entry: LibraryFileCache.Entry
        do {
            entry = try files.lookup(path)
        } catch .notAnImage {
            return ProblemDetails(.unsupportedMediaType, detail: "\(path) is not an image format thumbd can read").response
        } catch {
            return notFound()
        }
        var headers = HTTPHeaders()
        headers.add("Cache-Control", config.output.cacheControl)
        let representation = Representation(
            contentType: entry.file.format.mediaType,
            body: entry.body,
            etag: entry.etag,
            lastModified: entry.lastModified,
            headers: headers)
        return representation.response(to: request)
    }

    private func notFound() -> HTTPResponse {
        ProblemDetails(.notFound, detail: "no such image").response
    }
}
