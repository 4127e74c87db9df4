import HTTP
import HTTPServer
import ThumbdCore
import ThumbdProtocol

/// What `/img` and `/proxy` share once they know the source and the transform: the request's
/// own headers read (Client Hints, `Accept`), the source's version read once, the thumbnail
/// service asked, and its answer presented.
struct ThumbnailEndpoint: Sendable {
    let service: ThumbnailService
    let presenter: ThumbnailPresenter
    let watermarks: any WatermarkImages
    let tagging: SurrogateTagging

    /// Answers `request` with a thumbnail of `transform`: sizes from the request's Client
    /// Hints when it asks for them (a 400 when `w=auto` has none), the format negotiated from
    /// `Accept` when it says `fm=auto`; at once from a tier on a hit, later (from the worker
    /// pool) otherwise.
    func answer(_ request: HTTPRequest, transform: TransformRequest, of source: some ThumbnailSource,
                responder: HTTPResponder, memo: IdentityMemo? = nil) throws(ParameterError) {
        let (resolved, dpr) = try transform.resolved(with: ClientHints(request.headers))
        var variance = AnswerVariance(negotiatedFormat: transform.negotiatesFormat)
        if let use = transform.hints {
            variance.usedDPRHint = use.dpr
            variance.usedWidthHint = use.width
            variance.appliedDPR = dpr
        }
        // Sizes from Client Hints differ per request: no memoized identity for those.
        let thumbnail = ThumbnailRequest(transform: resolved, negotiated: FormatNegotiation.negotiated(for: resolved, request),
                                         memo: variance.usesHints ? nil : memo,
                                         watermark: try resolved.options.watermark.map { mark throws(ParameterError) in
                                             try watermarks.watermark(at: mark.path)
                                         })
        let version = source.knownVersion
        if let hit = service.cached(thumbnail, of: source, at: version) {
            return responder.respond(tagging.tagged(presenter.response(to: request, hit, variance: variance), source.name))
        }
        // Freshness passed, but a tier holds it for the version last known: answered once the
        // source confirms that version, or at once if the source is slow (never behind transforms).
        if version == nil, let held = source.heldVersion, let hit = service.cached(thumbnail, of: source, at: held) {
            return service.revalidate(of: source, held: held, answerHeld: { [presenter, variance, tagging, name = source.name] in
                responder.respond(tagging.tagged(presenter.response(to: request, hit, variance: variance), name))
            }, miss: { [service, waiter = waiter(responder, request, variance, source.name)] version in
                service.make(thumbnail, of: source, at: version, for: waiter)
            })
        }
        service.make(thumbnail, of: source, at: version, for: waiter(responder, request, variance, source.name))
    }

    /// Answers `request` with the source as it is (a remote original), fetched once for
    /// every request that asks for it meanwhile.
    func original(_ request: HTTPRequest, of source: some ThumbnailSource, responder: HTTPResponder) {
        service.original(of: source, for: waiter(responder, request, .none, source.name))
    }

    private func waiter(_ responder: HTTPResponder, _ request: HTTPRequest, _ variance: AnswerVariance,
                        _ name: SourceName) -> ThumbnailService.Waiter {
        ThumbnailService.Waiter(isCancelled: { responder.isCancelled },
                                deliver: { [presenter, tagging] answer in
                                    responder.respond(tagging.tagged(presenter.response(to: request, answer, variance: variance), name))
                                })
    }
}
