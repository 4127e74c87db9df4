import HTTP

extension ThumbnailAnswer {
    /// The response to `request`: the variant with its headers (and the Client Hints fields,
    /// when it used hints), or the failure's problem.
    func response(to request: HTTPRequest, vary: Bool, hints: HintFields?, store: VariantStore) -> HTTPResponse {
        switch self {
        case .variant(let variant, let timing, let tier):
            var representation = store.representation(of: variant, timing: timing, tier: tier, vary: vary)
            hints?.apply(to: &representation.headers, negotiatesFormat: vary)
            return representation.response(to: request)
        case .failed(let failure):
            return failure.response
        }
    }
}

extension HTTPResponder {
    /// Waits for a thumbnail for `request` and answers it (unless the client left).
    func thumbnailWaiter(for request: HTTPRequest, vary: Bool, hints: HintFields? = nil, store: VariantStore) -> ThumbnailService.Waiter {
        ThumbnailService.Waiter(isCancelled: { self.isCancelled },
                                deliver: { answer in self.respond(answer.response(to: request, vary: vary, hints: hints, store: store)) })
    }
}

extension ThumbnailService {
    /// Answers `request` with a thumbnail: at once from a tier on a hit, later (from the
    /// worker pool) otherwise. Hits of requests that used Client Hints take the general path:
    /// their fields differ from the prepared head's.
    func answer(_ request: HTTPRequest, with thumbnail: ThumbnailRequest, of source: some ThumbnailSource,
                responder: HTTPResponder, hints: HintFields? = nil) {
        let vary = thumbnail.transform.negotiatesFormat
        if let hit = cached(thumbnail, of: source) {
            guard let hints else { return responder.respond(hit.response(to: request)) }
            var representation = hit.prepared.representation
            hints.apply(to: &representation.headers, negotiatesFormat: vary)
            return responder.respond(representation.response(to: request))
        }
        make(thumbnail, of: source, for: responder.thumbnailWaiter(for: request, vary: vary, hints: hints, store: store))
    }
}
