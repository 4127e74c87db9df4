import Cache
import Clocks
import Imaging
import Logging
import Video

/// Thumbnails of any source, by stages (`Stages/`): looked up in the memory tier, then the
/// disk tier; on a miss, on the worker pool, once for every request that asks for the same
/// thumbnail while it is being made: the tiers asked (`TierLookup`, the shared one included),
/// the source read once (`MissSource`), a video's stills decoded (`VideoStillStage`), the
/// thumbnails planned and transformed within their working memory (`TransformStage`, with
/// `FaceStage`), and stored and answered (`VariantDelivery`). Held thumbnails past their
/// freshness are confirmed by `HeldRevalidation`.
package final class ThumbnailService: Sendable {
    package typealias Limits = ThumbnailLimits

    package typealias Waiter = SingleFlight<ThumbnailAnswer>.Waiter

    package let store: VariantStore
    /// The faces `crop=face` and `redact=face` need; nil: none are found (`crop=face` is
    /// `attention`, `redact=face` fails with `faceDetectionFailed`).
    package let faces: SourceFaces?
    package let pool: WorkerPool
    /// The transforms' working memory, bounded (`limits.transform_memory_bytes`).
    package let memory: MemoryBudget
    package let flights = SingleFlight<ThumbnailAnswer>()
    /// Misses queued per source (and page), made together from one load and one decode.
    package let batches = SourceBatches()
    /// Transforms run to completion (successful or not); dropped and refused ones do not count.
    package let transformsRun = Counter()
    /// Video stills decoded (a poster at one time, a preview), each for every thumbnail made of it.
    package let videoStills = Counter()
    /// Transforms stopped while they ran because nobody wanted them any more.
    package let transformsCancelled = Counter()
    /// Held thumbnails answered before their source confirmed its version (it was slow or down).
    package let staleAnswers = Counter()
    /// How long a held thumbnail waits for its source to confirm its version before it is
    /// answered as it is.
    package static let heldAnswerBound = 0.5
    private let limits: Limits
    private let stills: VideoStillStage
    private let transforms: TransformStage
    private let delivery: VariantDelivery
    private let revalidation: HeldRevalidation
    private let clock: any MonotonicClock

    package init(store: VariantStore, pool: WorkerPool, memory: MemoryBudget, limits: Limits,
         metrics: any ServiceMetrics, clock: any MonotonicClock, logger: Logger, faces: SourceFaces? = nil, vectors: VectorSources? = nil) {
        self.store = store
        self.faces = faces
        self.pool = pool
        self.memory = memory
        self.limits = limits
        self.clock = clock
        delivery = VariantDelivery(store: store, flights: flights, metrics: metrics, clock: clock, logger: logger)
        stills = VideoStillStage(limits: limits.video, memory: memory, flights: flights, made: videoStills, metrics: metrics, clock: clock)
        transforms = TransformStage(limits: limits, memory: memory, flights: flights, vectors: vectors,
                                    faces: FaceStage(faces: faces, logger: logger), delivery: delivery,
                                    transformsRun: transformsRun, transformsCancelled: transformsCancelled, clock: clock)
        revalidation = HeldRevalidation(staleAnswers: staleAnswers)
    }

    /// The cached thumbnail, when the source's version is known without blocking (`version`,
    /// read once per request from `source.knownVersion`) and a tier holds it. Cheap: the event
    /// loop answers hits with it.
    package func cached(_ request: ThumbnailRequest, of source: some ThumbnailSource, at version: SourceVersion?) -> VariantStore.Hit? {
        guard let version else { return nil }
        return store.lookup(request.identity(of: source.name, at: version).key)
    }

    /// Makes the thumbnail on the worker pool (or joins the making under way) and hands the
    /// answer to `waiter`. Work nobody waits for any more by the time it starts is skipped.
    package func make(_ request: ThumbnailRequest, of source: some ThumbnailSource, at version: SourceVersion?, for waiter: Waiter) {
        // A video read in parts (only what its frames need) is bounded by the video limits instead;
        // a source of a format not known yet may be one.
        if let version, let bytes = version.byteCount, bytes > limits.maxSourceBytes,
           !(source.readsVideosInParts && version.format?.isVideo != false) {
            return waiter.deliver(.failed(.sourceTooLarge(bytes: bytes, limit: limits.maxSourceBytes)))
        }
        let flight = version.map { request.identity(of: source.name, at: $0).key.hash }
            ?? ThumbnailIdentity.flightKey(source: source.name, request: request)
        let item = SourceBatches.Item(flight: flight, request: request, knownVersion: version)
        guard limits.sharesDecodes else {
            return run(flight, waiter) { [self] in produce([item], of: source) }
        }
        guard flights.join(flight, waiter) else { return }
        let batch = ThumbnailKeys.batch(source.name, page: request.transform.options.page)
        // A worker making this source takes it.
        guard batches.add(batch, item) else { return }
        let accepted = pool.submit { [self] in
            // Another miss of this source started first and makes this one too (now or next).
            guard var items = batches.take(batch, for: flight) else { return }
            while true {
                let wanted = items.filter { !flights.abandonIfUnwanted($0.flight) }
                if !wanted.isEmpty { produce(wanted, of: source, joining: { batches.arrived(batch) }) }
                guard let queued = batches.next(batch) else { return }
                items = queued
            }
        }
        if !accepted, batches.remove(batch, flight) {
            flights.finish(flight, with: .failed(.overloaded))
        }
    }

    /// A thumbnail a tier holds for `held`, the source's last known version, whose freshness
    /// has passed: the source is asked again (`HeldRevalidation`); the held thumbnail is answered
    /// (`answerHeld`) once it confirms that version, or after `heldAnswerBound` when it has not
    /// (slow or down: counted in `staleAnswers`), or when it fails; a changed version goes to
    /// `miss`, to be made.
    package func revalidate(of source: some ThumbnailSource, held: SourceVersion, answerHeld: @escaping @Sendable () -> Void,
                            miss: @escaping @Sendable (SourceVersion) -> Void) {
        revalidation.revalidate(of: source, held: held, bound: Self.heldAnswerBound, answerHeld: answerHeld, miss: miss)
    }

    /// The source as it is (a remote original without parameters), fetched on the pool once
    /// for every request that asks for it meanwhile.
    package func original(of source: some ThumbnailSource, for waiter: Waiter) {
        let flight = ThumbnailKeys.original(source.name)
        run(flight, waiter) { [flights] in
            switch source.load() {
            case .failure(let failure):
                flights.finish(flight, with: .failed(failure))
            case .success(let loaded):
                let variant = CachedVariant(bytes: loaded.bytes,
                                            contentType: loaded.version.format?.mediaType ?? "application/octet-stream",
                                            etag: ThumbnailIdentity.originalETag(sourceVersion: loaded.version.tag.text),
                                            lastModified: loaded.version.lastModified)
                flights.finish(flight, with: .variant(VariantAnswer(variant: variant, tier: loaded.tier, steps: [loaded.step])))
            }
        }
    }

    /// Stops the revalidations' threads (the worker pool is the app's).
    package func stop() {
        revalidation.stop()
    }

    /// Joins `flight` (or starts it: `work` on the pool, which finishes the flight).
    private func run(_ flight: String, _ waiter: Waiter, _ work: @escaping @Sendable () -> Void) {
        guard flights.join(flight, waiter) else { return }
        let accepted = pool.submit { [flights] in
            if flights.abandonIfUnwanted(flight) { return }
            work()
        }
        if !accepted { flights.finish(flight, with: .failed(.overloaded)) }
    }

    /// Worker thread: misses of one source (one, or several queued together: a grid's 1x, 2x
    /// and detail sizes) through the stages, each flight finished as soon as it is settled:
    /// what the shared tier holds for a version known before; then the source's version where
    /// it can be had without the bytes, and what a tier holds for it; else the source read once,
    /// the misses that arrived meanwhile joined (`joining`), what a tier holds answered (another
    /// size may have made it meanwhile), and the rest made: from the image, or from each still
    /// of a video.
    private func produce(_ items: [SourceBatches.Item], of source: some ThumbnailSource,
                         joining: () -> [SourceBatches.Item] = { [] }) {
        var pending = items
        var tiers = TierLookup(store: store, flights: flights, name: source.name)
        if store.shared != nil {
            tiers.answer(&pending, at: \.knownVersion)
            if pending.isEmpty { return }
        }
        let everyVersionKnown = items.allSatisfy(\.versionKnownEarlier)
        if !everyVersionKnown, let checked = source.checkedVersion() {
            switch checked {
            case .failure(let failure): return fail(pending, failure)
            case .success(let version): tiers.answer(&pending, at: { _ in version })
            }
            if pending.isEmpty { return }
        }
        let read: MissSource
        switch MissSource.load(source, maxSourceBytes: limits.maxSourceBytes) {
        case .success(let loaded): read = loaded
        case .failure(let failure): return fail(pending, failure)
        }
        let late = joining().filter { !flights.abandonIfUnwanted($0.flight) }
        pending += late
        if !everyVersionKnown || !late.isEmpty || store.shared != nil {
            tiers.answer(&pending, at: { _ in read.version })
            if pending.isEmpty { return }
        }
        switch read {
        case .image(let loaded):
            transforms.make(pending, of: source.name, from: loaded)
        case .video(let reader, let version):
            // Thumbnails of one still (a poster at one time, or the preview) share its decode.
            for (kind, items) in stills.groups(pending, of: source.name, at: version) {
                switch stills.still(kind, of: reader, version: version, for: items) {
                case .success(let still): transforms.make(items, of: source.name, from: still)
                case .failure(let failure):
                    for item in items {
                        delivery.fail(item.flight, failure, identity: item.request.identity(of: source.name, at: version), since: clock.now())
                    }
                case nil: continue  // nobody wants them any more
                }
            }
        }
    }

    /// Every pending flight failed before its thumbnail could be planned (the source's).
    private func fail(_ pending: [SourceBatches.Item], _ failure: ThumbnailFailure) {
        for item in pending { flights.finish(item.flight, with: .failed(failure)) }
    }
}
