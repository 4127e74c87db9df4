import Cache
import Clocks
import Dispatch
import HTTP
import Imaging
import Logging
import Synchronization
import ThumbdProtocol
import Video

/// Thumbnails of any source: looked up in the memory tier, then the disk tier; on a miss
/// asked of the shared tier (when there is one) or made on the worker pool, once for every
/// request that asks for the same thumbnail while it is being made, counted and timed in the
/// metrics, and stored in both local tiers, then in the shared one behind the answer.
package final class ThumbnailService: Sendable {
    package struct Limits: Sendable {
        /// Sources over this many bytes are refused (413).
        package var maxSourceBytes: Int
        /// Sources over this many pixels are refused (422) from their header alone, and so are
        /// outputs (every frame counted).
        package var maxSourcePixels: Int
        /// Outputs wider or taller (after resizing, rotation and padding) are refused (422)
        /// before anything is decoded.
        package var maxDimension: Int = .max
        /// Animations (`anim=1`) with more frames are refused (422).
        package var maxFrames: Int = .max
        /// `output.shared_decode`: misses of one source queued together made from one decode.
        /// Off by default: their bytes (and so their ETags) differ from the same sizes made alone.
        package var sharesDecodes = false
        /// Videos lasting longer are refused (422) from their container's header.
        package var videoMaxDuration: Double = 4 * 3600
        /// Wall-clock seconds one still of a video may take to decode (422 past it).
        package var videoMaxDecodeSeconds: Double = 20

        package init(maxSourceBytes: Int, maxSourcePixels: Int, maxDimension: Int = .max, maxFrames: Int = .max,
                     sharesDecodes: Bool = false, videoMaxDuration: Double = 4 * 3600, videoMaxDecodeSeconds: Double = 20) {
            self.maxSourceBytes = maxSourceBytes
            self.maxSourcePixels = maxSourcePixels
            self.maxDimension = maxDimension
            self.maxFrames = maxFrames
            self.sharesDecodes = sharesDecodes
            self.videoMaxDuration = videoMaxDuration
            self.videoMaxDecodeSeconds = videoMaxDecodeSeconds
        }

        /// What FFmpeg may spend on one still (and on a library video's facts).
        package var video: VideoDecoder.Limits {
            VideoDecoder.Limits(maxPixels: maxSourcePixels, maxDuration: videoMaxDuration, maxSeconds: videoMaxDecodeSeconds)
        }
    }

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
    /// Sources asked again for a held thumbnail's version: off the worker pool, so that a
    /// held thumbnail never waits behind transforms.
    private let revalidations = DispatchQueue(label: "thumbd.revalidations", attributes: .concurrent)
    /// How long a held thumbnail waits for its source to confirm its version before it is
    /// answered as it is.
    package static let heldAnswerBound = 0.5
    private let limits: Limits
    /// Videos' posters and previews.
    private let stills: VideoStills
    /// SVG and PDF pages, drawn by renderer processes; nil: none (415).
    private let vectors: VectorSources?
    private let metrics: ThumbdMetrics
    private let clock: any MonotonicClock
    private let logger: Logger

    package init(store: VariantStore, pool: WorkerPool, memory: MemoryBudget, limits: Limits,
         metrics: ThumbdMetrics, clock: any MonotonicClock, logger: Logger, faces: SourceFaces? = nil, vectors: VectorSources? = nil) {
        self.store = store
        self.vectors = vectors
        self.faces = faces
        self.pool = pool
        self.memory = memory
        self.limits = limits
        stills = VideoStills(limits: limits.video)
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
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
        let batch = "\(source.name.text)|\(request.transform.options.page)"
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
    /// has passed: the source is asked again in the background (off the worker pool); the held
    /// thumbnail is answered (`answerHeld`) once it confirms that version, or after
    /// `heldAnswerBound` when it has not (slow or down: counted in `staleAnswers`), or when it
    /// fails; a changed version goes to `miss`, to be made.
    package func revalidate(of source: some ThumbnailSource, held: SourceVersion, answerHeld: @escaping @Sendable () -> Void,
                    miss: @escaping @Sendable (SourceVersion) -> Void) {
        let answered = Atomic<Bool>(false)
        let first: @Sendable () -> Bool = { !answered.exchange(true, ordering: .acquiringAndReleasing) }
        let stale: @Sendable () -> Void = { [staleAnswers] in
            if first() {
                staleAnswers.increment()
                answerHeld()
            }
        }
        revalidations.async {
            // A HEAD where the source has one, else the load (a remote original's conditional
            // GET: a 304 keeps the version held).
            switch source.checkedVersion() ?? source.load().map(\.version) {
            case .success(let version) where version.tag == held.tag: if first() { answerHeld() }
            case .success(let version): if first() { miss(version) }
            case .failure: stale()
            }
        }
        // On a queue of its own: the revalidations' threads may all be blocked on the store.
        DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + Self.heldAnswerBound, execute: stale)
    }

    /// The source as it is (a remote original without parameters), fetched on the pool once
    /// for every request that asks for it meanwhile.
    package func original(of source: some ThumbnailSource, for waiter: Waiter) {
        let flight = source.name.text + "|original"
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
    /// and detail sizes), each flight finished as soon as it is settled. What the shared tier
    /// holds for a version known before answered first; then the source's version
    /// where it can be had without the bytes, and what a tier holds for it answered; else the
    /// source loaded once, then what a tier holds answered (when the version was not known
    /// before loading, another size may have made it meanwhile), misses of the source that
    /// arrived during the load joined (`joining`), and the rest transformed, several from one
    /// shared decode (`SharedDecode`) where they can share it.
    private func produce(_ items: [SourceBatches.Item], of source: some ThumbnailSource,
                         joining: () -> [SourceBatches.Item] = { [] }) {
        var pending = items
        func answerAll(_ answer: ThumbnailAnswer) {
            for item in pending { flights.finish(item.flight, with: answer) }
        }
        // Keys asked of the shared tier already (each is asked once per miss).
        var askedShared = Set<String>()
        func answerFromTiers(_ version: (SourceBatches.Item) -> SourceVersion?) {
            pending.removeAll { item in
                guard let version = version(item) else { return false }
                let key = item.request.identity(of: source.name, at: version).key
                if let found = store.variant(key) {
                    flights.finish(item.flight, with: .variant(VariantAnswer(variant: found.variant, tier: found.tier, steps: [])))
                    return true
                }
                guard store.shared != nil, askedShared.insert(key.hash).inserted,
                      let variant = store.sharedVariant(key, sourcePrefix: source.name.keyPrefix) else { return false }
                flights.finish(item.flight, with: .variant(VariantAnswer(variant: variant, tier: .shared, steps: [])))
                return true
            }
        }
        if store.shared != nil {
            answerFromTiers(\.knownVersion)
            if pending.isEmpty { return }
        }
        let everyVersionKnown = items.allSatisfy(\.versionKnownEarlier)
        if !everyVersionKnown, let checked = source.checkedVersion() {
            switch checked {
            case .failure(let failure): return answerAll(.failed(failure))
            case .success(let version): answerFromTiers { _ in version }
            }
            if pending.isEmpty { return }
        }
        // A video read in parts is not loaded: its stills read what they need.
        let video: (reader: VideoReader, version: SourceVersion)?
        var loaded: LoadedSource?
        if source.readsVideosInParts, let opened = source.videoReader(refusedWhole: false) {
            video = opened
        } else {
            switch source.load() {
            case .success(let whole):
                guard whole.bytes.count <= limits.maxSourceBytes else {
                    return answerAll(.failed(.sourceTooLarge(bytes: whole.bytes.count, limit: limits.maxSourceBytes)))
                }
                video = whole.version.format?.isVideo == true ? (VideoReader(bytes: whole.bytes), whole.version) : nil
                loaded = whole
            case .failure(let failure):
                // Too large to read whole: a video is read in parts instead.
                guard failure.isTooLarge, source.readsVideosInParts, let opened = source.videoReader(refusedWhole: true) else {
                    return answerAll(.failed(failure))
                }
                video = opened
            }
        }
        let version = video?.version ?? loaded!.version
        let late = joining().filter { !flights.abandonIfUnwanted($0.flight) }
        pending += late
        if !everyVersionKnown || !late.isEmpty || store.shared != nil {
            answerFromTiers { _ in version }
            if pending.isEmpty { return }
        }
        guard let video else { return transform(pending, of: source.name, from: loaded!) }
        // Thumbnails of one still (a poster at one time, or the preview) share its decode.
        var kinds: [VideoStills.Kind] = []
        var groups: [VideoStills.Kind: [SourceBatches.Item]] = [:]
        for item in pending {
            let kind = VideoStills.kind(of: item.request.identity(of: source.name, at: version).options)
            if groups[kind] == nil { kinds.append(kind) }
            groups[kind, default: []].append(item)
        }
        for kind in kinds {
            let items = groups[kind]!
            let fetched = video.reader.bytesFetched
            switch still(kind, of: video.reader, version: version, for: items) {
            case .success(let still):
                videoStills.increment()
                metrics.recordVideoStill(sourceBytes: video.reader.bytesFetched - fetched)
                transform(items, of: source.name, from: still)
            case .failure(let failure):
                for item in items {
                    finish(item.flight, failed: failure, identity: item.request.identity(of: source.name, at: version), since: clock.now())
                }
            case nil: continue  // nobody wants them any more
            }
        }
    }

    /// A video's still for `items` (a poster or the preview), decoded within its working memory:
    /// an image source whose thumbnails are made as any other's. Nil when the items were all
    /// abandoned while it waited for memory.
    private func still(_ kind: VideoStills.Kind, of reader: VideoReader, version: SourceVersion,
                       for items: [SourceBatches.Item]) -> Result<LoadedSource, ThumbnailFailure>? {
        let started = clock.now()
        let info: VideoInfo
        // Bounded: a stream without a frame size or over the pixel limit is refused here.
        do { info = try VideoDecoder.probe(reader, limits: limits.video) } catch { return .failure(.video(error)) }
        let flightsOfStill = items.map(\.flight)
        let made: Result<[UInt8], MemoryBudget.Refusal>
        do throws(ImagingOrVideoError) {
            made = try memory.withReserved(stills.estimate(kind, width: info.width, height: info.height),
                                           abandoned: { [flights] in flightsOfStill.allSatisfy(flights.isUnwanted) }) {
                () throws(ImagingOrVideoError) -> [UInt8] in try stills.still(kind, from: reader, duration: info.duration).bytes
            }
        } catch {
            switch error {
            case .video(let error): return .failure(.video(error))
            case .imaging(let error): return .failure(.imaging(error))
            }
        }
        switch made {
        case .success(let bytes):
            return .success(LoadedSource(version: version, bytes: bytes, step: .frame(clock.now() - started), still: "\(kind)"))
        case .failure(.abandoned):
            flightsOfStill.forEach { _ = flights.abandonIfUnwanted($0) }
            return nil
        case .failure(.overLimit(let needed, let limit)):
            return .failure(.workingMemory(needed: needed, limit: limit))
        }
    }

    /// Worker thread: `pending`'s thumbnails of `loaded` planned (limits checked) and made, several
    /// from one shared decode (`SharedDecode`) where they can share it.
    private func transform(_ pending: [SourceBatches.Item], of name: SourceName, from loaded: LoadedSource) {
        if ImageFormat.sniff(loaded.bytes)?.isVector == true { return transformDrawn(pending, of: name, from: loaded) }
        let identities = pending.map { $0.request.identity(of: name, at: loaded.version) }
        var planned: [PlannedTransform] = []
        for (item, identity) in zip(pending, identities) {
            switch plan(loaded, identity, item) {
            case .success(let transform): planned.append(transform)
            case .failure(let failure): finish(item.flight, failed: failure, identity: identity, since: clock.now())
            }
        }
        // Several sizes from one decode, held while each is made: one reservation for the
        // decode and the largest of them covers the batch.
        if planned.count > 1, let decodeBytes = SharedDecode.estimate(header: planned[0].header, for: planned.map(\.identity.options)) {
            let flightsOfBatch = planned.map(\.item.flight)
            let unwanted: @Sendable () -> Bool = { [flights] in flightsOfBatch.allSatisfy(flights.isUnwanted) }
            let reserved = memory.withReserved(decodeBytes + planned.map(\.estimate).max()!, abandoned: unwanted) {
                let shared = try? SharedDecode(loaded.bytes, header: planned[0].header, for: planned.map(\.identity.options),
                                               stop: StopCheck(unwanted))
                for transform in planned { make(transform, of: name, from: loaded, shared: shared, reserved: true) }
            }
            switch reserved {
            case .success: return
            case .failure(.abandoned): return planned.forEach { _ = flights.abandonIfUnwanted($0.item.flight) }
            case .failure(.overLimit): break  // each made alone, if it fits alone
            }
        }
        for transform in planned { make(transform, of: name, from: loaded, shared: nil, reserved: false) }
    }

    /// Worker thread: thumbnails of an SVG or PDF, each made from a drawing of its page at the
    /// scale its output needs, drawn by a renderer process within the working memory reserved
    /// for it; then planned and made from the drawing like any raster.
    private func transformDrawn(_ pending: [SourceBatches.Item], of name: SourceName, from loaded: LoadedSource) {
        for item in pending {
            let identity = item.request.identity(of: name, at: loaded.version)
            let started = clock.now()
            switch drawing(loaded, of: name, identity, item.flight) {
            case .success(let (source, options)):
                switch plan(source, identity, item, options: options) {
                case .success(let transform): make(transform, of: name, from: source, shared: nil, reserved: false)
                case .failure(let failure): finish(item.flight, failed: failure, identity: identity, since: started)
                }
            case .failure(let failure): finish(item.flight, failed: failure, identity: identity, since: started)
            case nil: continue  // nobody wants it any more
            }
        }
    }

    /// The page a thumbnail of a vector source needs, drawn: the drawing as its source and the
    /// options to transform it with; nil when its flight was abandoned meanwhile.
    private func drawing(_ loaded: LoadedSource, of name: SourceName, _ identity: ThumbnailIdentity,
                         _ flight: String) -> Result<(LoadedSource, TransformOptions), ThumbnailFailure>? {
        if flights.abandonIfUnwanted(flight) { return nil }
        guard let vectors else { return .failure(.imaging(.unsupportedFormat)) }
        let options = identity.options
        let stop = stopCheck(flight)
        do throws(ImagingError) {
            try Self.checkRedactedPage(options)
            let header = try vectors.header(loaded.bytes, page: options.page, of: name, at: loaded.version, stop: stop)
            try OutputGeometry(header: header, options: options).check(maxDimension: limits.maxDimension, maxPixels: limits.maxSourcePixels)
            let scale = try vectors.scale(header, options: options)
            let drawn = try memory.withReserved(VectorSources.drawingMemory(pixels: scale.pixels, documentBytes: loaded.bytes.count),
                                                abandoned: { [flights] in flights.abandonIfUnwanted(flight) }) { () throws(ImagingError) in
                try vectors.draw(loaded.bytes, page: options.page, scale: scale, stop: stop)
            }
            switch drawn {
            case .success(let drawing): return .success((drawing.source(of: loaded), drawing.scale.options))
            case .failure(.abandoned): return nil
            case .failure(.overLimit(let needed, let limit)): return .failure(.workingMemory(needed: needed, limit: limit))
            }
        } catch .cancelled {
            transformsCancelled.increment()
            if flights.abandonIfUnwanted(flight) { return nil }
            return .failure(.imaging(.cancelled))
        } catch {
            return .failure(.imaging(error))
        }
    }

    /// Faces are found on the first page: another page's would go unhidden.
    private static func checkRedactedPage(_ options: TransformOptions) throws(ImagingError) {
        if options.redact != nil && options.page != 1 {
            throw .badParameter(name: "redact", detail: "redact works on the first page only, not page \(options.page)")
        }
    }

    /// Stops the work of `flight` while it runs once nobody wants it (its clients gone, its
    /// response timed out).
    private func stopCheck(_ flight: String) -> StopCheck {
        StopCheck { [flights] in flights.isUnwanted(flight) }
    }

    /// A transform whose source header and output passed the limits, with its working-memory
    /// estimate, ready to run.
    private struct PlannedTransform {
        let item: SourceBatches.Item
        let identity: ThumbnailIdentity
        /// What the transform is run with: the identity's options, or a drawing's
        /// (`VectorScale.options`).
        let options: TransformOptions
        let header: ImageHeader
        let watermark: [UInt8]?
        let estimate: Int
    }

    /// The header and the output it asks for checked against the limits, the watermark read
    /// and the working memory estimated: everything decided before a pixel is decoded.
    private func plan(_ source: LoadedSource, _ identity: ThumbnailIdentity, _ item: SourceBatches.Item,
                      options given: TransformOptions? = nil) -> Result<PlannedTransform, ThumbnailFailure> {
        let options = given ?? identity.options
        do throws(ImagingError) {
            try Self.checkRedactedPage(options)
            let header = try ImageTransformer.checkedHeader(source.bytes, maxPixels: limits.maxSourcePixels,
                                                            animated: options.keepsFrames, maxFrames: limits.maxFrames,
                                                            page: options.page)
            let geometry = OutputGeometry(header: header, options: options)
            try geometry.check(maxDimension: limits.maxDimension, maxPixels: limits.maxSourcePixels)
            var watermark: (bytes: [UInt8], header: ImageHeader)?
            if let mark = options.watermark {
                guard var bytes = item.request.watermark?.bytes() else {
                    throw ImagingError.badParameter(name: "wm", detail: "the watermark image cannot be read")
                }
                // A watermark is decoded like a source: the same limits, from its header.
                guard bytes.count <= limits.maxSourceBytes else {
                    throw ImagingError.badParameter(name: "wm", detail: "the watermark image is \(bytes.count) bytes, over the limit of \(limits.maxSourceBytes)")
                }
                // An SVG or PDF watermark is drawn by a renderer at the width it is placed at.
                if ImageFormat.sniff(bytes)?.isVector == true {
                    guard let vectors else { throw ImagingError.unsupportedFormat }
                    bytes = try vectors.watermark(bytes, width: Int((Double(geometry.width) * mark.scale).rounded()),
                                                  stop: stopCheck(item.flight))
                }
                watermark = (bytes, try ImageTransformer.checkedHeader(bytes, maxPixels: limits.maxSourcePixels))
            }
            let estimate = WorkingMemory.estimate(header: header, options: options, sourceBytes: source.bytes.count,
                                                  watermark: watermark?.header, watermarkBytes: watermark?.bytes.count ?? 0)
            return .success(PlannedTransform(item: item, identity: identity, options: options, header: header,
                                             watermark: watermark?.bytes, estimate: estimate))
        } catch {
            return .failure(.imaging(error))
        }
    }

    /// Runs one planned transform (reserving its working memory unless the batch did) and
    /// finishes its flight: stored and answered, or failed. Worker thread.
    private func make(_ transform: PlannedTransform, of name: SourceName, from source: LoadedSource, shared: SharedDecode?,
                      reserved: Bool) {
        let flight = transform.item.flight, identity = transform.identity
        // Its clients may have gone while the source loaded or others were made.
        if flights.abandonIfUnwanted(flight) { return }
        let started = clock.now()
        let stop = stopCheck(flight)
        let faces: [PixelRect]
        switch facesNeeded(by: identity.options, of: name, from: source) {
        case .success(let found): faces = found
        case .failure(let error): return finish(flight, failed: .imaging(error), identity: identity, since: started)
        }
        func run() throws(ImagingError) -> ImageTransformer.Output {
            defer { transformsRun.increment() }
            return try ImageTransformer.transform(source.bytes, header: transform.header, options: transform.options, faces: faces,
                                                  watermark: transform.watermark, shared: shared, stop: stop)
        }
        let output: ImageTransformer.Output
        do throws(ImagingError) {
            if reserved {
                output = try run()
            } else {
                switch try memory.withReserved(transform.estimate, abandoned: { flights.abandonIfUnwanted(flight) }, run) {
                case .success(let made): output = made
                case .failure(.abandoned): return  // its flight is released
                case .failure(.overLimit(let needed, let limit)):
                    return finish(flight, failed: .workingMemory(needed: needed, limit: limit), identity: identity, since: started)
                }
            }
        } catch .cancelled {
            transformsCancelled.increment()
            // Someone may have joined as it stopped: they are told to ask again.
            if flights.abandonIfUnwanted(flight) { return }
            return finish(flight, failed: .imaging(.cancelled), identity: identity, since: started)
        } catch {
            return finish(flight, failed: .imaging(error), identity: identity, since: started)
        }
        let seconds = clock.now() - started
        var final = identity.options
        final.format = output.format
        final.normalize()
        let variant = CachedVariant(bytes: output.bytes, contentType: output.format.mediaType,
                                    etag: ThumbnailIdentity.etag(sourceVersion: identity.versions, options: final,
                                                                 sharedDecode: output.sharedDecode),
                                    lastModified: source.version.lastModified)
        metrics.recordTransform(format: output.format.rawValue, ok: true, seconds: seconds)
        store.store(identity.key, variant)
        // Queued before the answer, sent after it (the queue's own thread).
        store.share(identity.key, sourcePrefix: name.keyPrefix, variant)
        flights.finish(flight, with: .variant(VariantAnswer(variant: variant, tier: nil, steps: [source.step, .transform(seconds)])))
    }

    /// The faces a transform places (`crop=face`) or hides (`redact=face`): none for other
    /// options. A redaction fails without them; a face crop becomes `attention`.
    private func facesNeeded(by options: TransformOptions, of name: SourceName,
                             from source: LoadedSource) -> Result<[PixelRect], ImagingError> {
        // Normalized options keep `crop=face` only with `fit=cover` and no `fp`.
        guard options.redact == .face || (options.crop == .face && options.page == 1) else { return .success([]) }
        guard let faces else {
            return options.redact == nil ? .success([]) : .failure(.faceDetectionFailed("face detection is not configured"))
        }
        // A video's stills each have faces of their own.
        let facesName = source.still.map { SourceName(text: name.text + "|still=" + $0) } ?? name
        let found = faces.faces(of: facesName, version: source.version, bytes: source.bytes)
        if case .failure(let error) = found, options.redact == nil {
            logger.warning("faces of \(name.text) cannot be found (crop=face is attention): \(error)")
            return .success([])
        }
        return found
    }

    /// A transform that gave no variant, counted and answered.
    private func finish(_ flight: String, failed failure: ThumbnailFailure, identity: ThumbnailIdentity, since started: Double) {
        metrics.recordTransform(format: identity.options.format?.rawValue ?? "auto", ok: false, seconds: clock.now() - started)
        switch failure {
        case .imaging(.encodingFailed): logger.error("encoding failed for \(identity.key.text): \(failure)")
        case .imaging(.faceDetectionFailed): logger.error("faces not found for \(identity.key.text): \(failure)")
        default: break
        }
        flights.finish(flight, with: .failed(failure))
    }
}
