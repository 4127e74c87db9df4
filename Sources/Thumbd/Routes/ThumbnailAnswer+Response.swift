import HTTP

extension ThumbnailAnswer {
    /// The response to `request`: the variant with its headers, or the failure's problem.
    func response(to request: HTTPRequest, vary: Bool, store: VariantStore) -> HTTPResponse {
        switch self {
        case .variant(let variant, let timing, let tier):
            store.representation(of: variant, timing: timing, tier: tier, vary: vary).response(to: request)
        case .failed(let failure):
            failure.response
        }
    }
}

extension HTTPResponder {
    /// Waits for a thumbnail for `request` and answers it (unless the client left).
    func thumbnailWaiter(for request: HTTPRequest, vary: Bool, store: VariantStore) -> ThumbnailService.Waiter {
        ThumbnailService.Waiter(isCancelled: { self.isCancelled },
                                deliver: { answer in self.respond(answer.response(to: request, vary: vary, store: store)) })
    }
}

extension ThumbnailService {
    /// Answers `request` with a thumbnail: at once from a tier on a hit, later (from the
    /// worker pool) otherwise.
    func answer(_ request: HTTPRequest, with thumbnail: ThumbnailRequest, of source: some ThumbnailSource,
                responder: HTTPResponder) {
        if let hit = cached(thumbnail, of: source) {
            return responder.respond(hit.response(to: request))
        }
        make(thumbnail, of: source,
             for: responder.thumbnailWaiter(for: request, vary: thumbnail.transform.negotiatesFormat, store: store))
    }
}
