import HTTP

extension ThumbnailAnswer {
    /// The response to `request`: the variant with its headers (and the Client Hints fields,
    /// when it used hints), or the failure's problem.
    func response(to request: HTTPRequest, vary: Bool, hints: HintFields?, store: VariantStore) -> HTTPResponse {
        switch self {
        case .variant(let variant, let timing, let tier):
            return store.representation(of: variant, timing: timing, tier: tier, vary: vary)
                .with(hints, negotiatesFormat: vary).response(to: request)
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
    /// Answers `request` with a thumbnail of `transform`: sizes from the request's Client
    /// Hints when it asks for them (a 400 when `w=auto` has none), the format negotiated from
    /// `Accept` when it says `fm=auto`; at once from a tier on a hit, later (from the worker
    /// pool) otherwise. Hits of requests that used Client Hints take the general path: their
    /// fields differ from the prepared head's.
    func answer(_ request: HTTPRequest, transform: TransformRequest, of source: some ThumbnailSource,
                responder: HTTPResponder, memo: IdentityMemo? = nil) throws(ParameterError) {
        let (resolved, dpr) = try transform.resolved(with: ClientHints(request.headers))
        let hints = HintFields(transform.hints, dpr: dpr)
        // Sizes from Client Hints differ per request: no memoized identity for those.
        let thumbnail = ThumbnailRequest(transform: resolved, negotiated: FormatNegotiation.negotiated(for: resolved, request),
                                         memo: hints == nil ? memo : nil)
        let vary = thumbnail.transform.negotiatesFormat
        if let hit = cached(thumbnail, of: source) {
            guard hints != nil else { return responder.respond(hit.response(to: request)) }
            return responder.respond(hit.prepared.representation.with(hints, negotiatesFormat: vary).response(to: request))
        }
        make(thumbnail, of: source, for: responder.thumbnailWaiter(for: request, vary: vary, hints: hints, store: store))
    }
}
