import Cache
import HTTP
import Imaging
import ThumbdCore
import WireCoding

/// Builds every response field of a thumbnail answer (and of a remote original served as it
/// is), in one place: the fields every image carries (`ImageFields`), `Vary` and
/// `Content-DPR` (`AnswerVariance`), `X-Cache`, `Server-Timing`, and the validators. The
/// heads prepared for hits are made here too, so a hit and a miss of one variant say the same.
struct ThumbnailPresenter: Sendable {
    let fields: ImageFields

    typealias Content = VariantContent

    func representation(_ content: Content, tier: CacheTier?, steps: [WorkStep], variance: AnswerVariance) -> Representation {
        // A remote original served as it is may be a document that runs script (SVG, PDF).
        var headers = fields.headers(for: content.contentType)
        if let vary = variance.varyValue { headers.add(.vary, vary) }
        headers.add(.xCache, tier?.rawValue ?? "miss")
        headers.add(.serverTiming, Self.timing(tier: tier, steps: steps).fieldValue)
        if let dpr = variance.appliedDPR { headers.add(.contentDPR, DecimalText.format(dpr)) }
        return Representation(contentType: content.contentType, body: content.body, etag: EntityTag(content.etag),
                              lastModified: Self.timestamp(content.lastModified), headers: headers)
    }

    /// The response to `request` for what the service answered.
    func response(to request: HTTPRequest, _ answer: ThumbnailAnswer, variance: AnswerVariance) -> HTTPResponse {
        switch answer {
        case .variant(let found):
            var response = representation(Content(found.variant), tier: found.tier, steps: found.steps, variance: variance)
                .response(to: request)
            response.annotation = found.tier?.rawValue ?? "miss"
            return response
        case .failed(let failure):
            return failure.response
        }
    }

    /// A hit's response: from the prepared heads when the request used no Client Hint.
    func response(to request: HTTPRequest, _ hit: VariantStore.Hit, variance: AnswerVariance) -> HTTPResponse {
        var response = variance.usesHints
            ? representation(hit.content, tier: hit.tier, steps: [], variance: variance).response(to: request)
            : hit.prepared[variance.negotiatedFormat].response(to: request)
        response.annotation = hit.tier.rawValue
        return response
    }

    /// The heads a hit from `tier` is answered with, without and with `Vary: Accept`.
    func prepared(_ content: Content, tier: CacheTier) -> PreparedVariant {
        PreparedVariant(plain: PreparedRepresentation(representation(content, tier: tier, steps: [], variance: .none)),
                        varying: PreparedRepresentation(representation(content, tier: tier, steps: [],
                                                                       variance: AnswerVariance(negotiatedFormat: true))))
    }

    /// Hits name their tier (a lookup's few microseconds are not worth a `dur`); the rest
    /// list the steps that ran.
    static func timing(tier: CacheTier?, steps: [WorkStep]) -> ServerTiming {
        if steps.isEmpty, let tier { return ServerTiming([ServerTiming.Step("cache", description: tier.rawValue)]) }
        return ServerTiming(steps.map { step in
            switch step {
            case .read(let seconds): ServerTiming.Step("read", duration: seconds)
            case .fetch(let seconds): ServerTiming.Step("fetch", duration: seconds)
            case .original(let tier, let seconds): ServerTiming.Step("original", duration: seconds, description: tier.rawValue)
            case .frame(let seconds): ServerTiming.Step("frame", duration: seconds)
            case .transform(let seconds): ServerTiming.Step("transform", duration: seconds)
            case .autoQuality(let choice): ServerTiming.Step("quality", description: Self.describe(choice))
            }
        })
    }

    /// `"q=62 distance=0.00312 encodes=3"`, and `met=0` when even the ceiling missed the target.
    static func describe(_ choice: QualitySearch.Choice) -> String {
        "\"q=\(choice.quality) distance=\(DecimalText.format(choice.distance, fractionDigits: 5)) encodes=\(choice.encodes)"
            + (choice.met ? "" : " met=0") + "\""
    }

    /// A Last-Modified from seconds: none when the source had none (0).
    static func timestamp(_ seconds: Int) -> Timestamp? { seconds > 0 ? Timestamp(seconds: seconds) : nil }
}
