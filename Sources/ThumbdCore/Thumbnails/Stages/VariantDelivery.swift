import Cache
import Clocks
import Imaging
import Logging

/// The last stage of a miss: a made thumbnail stored in both local tiers, queued for the
/// shared one (sent after the answer), counted and answered; or a failure counted, logged
/// where it is the operator's to see, and answered.
struct VariantDelivery: Sendable {
    let store: VariantStore
    let flights: SingleFlight<ThumbnailAnswer>
    let metrics: any ServiceMetrics
    let clock: any MonotonicClock
    let logger: Logger

    /// `output` of `identity`, made from `source` in `seconds`.
    func deliver(_ output: ImageTransformer.Output, of identity: ThumbnailIdentity, name: SourceName, from source: LoadedSource,
                 flight: String, seconds: Double) {
        var final = identity.options
        final.format = output.format
        final.normalize()
        let variant = CachedVariant(bytes: output.bytes, contentType: output.format.mediaType,
                                    etag: ThumbnailIdentity.etag(sourceVersion: identity.versions, options: final,
                                                                 sharedDecode: output.sharedDecode),
                                    lastModified: source.version.lastModified)
        metrics.transformed(output.format, ok: true, seconds: seconds)
        store.store(identity.key, variant)
        store.share(identity.key, sourcePrefix: name.keyPrefix, variant)
        var steps = [source.step, WorkStep.transform(seconds)]
        if let choice = output.autoQuality {
            metrics.autoQuality(output.format, choice)
            steps.append(.autoQuality(choice))
        }
        flights.finish(flight, with: .variant(VariantAnswer(variant: variant, tier: nil, steps: steps)))
    }

    /// A thumbnail that gave no variant, counted and answered.
    func fail(_ flight: String, _ failure: ThumbnailFailure, identity: ThumbnailIdentity, since started: Double) {
        metrics.transformed(identity.options.format, ok: false, seconds: clock.now() - started)
        switch failure {
        case .imaging(.encodingFailed): logger.error("encoding failed for \(identity.key.text): \(failure)")
        case .imaging(.faceDetectionFailed): logger.error("faces not found for \(identity.key.text): \(failure)")
        default: break
        }
        flights.finish(flight, with: .failed(failure))
    }
}
