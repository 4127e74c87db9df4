import Clocks
import Imaging
import ThumbdProtocol

/// The transform stage of a miss: its thumbnails of one loaded source (an image, a video's
/// still, a vector page's drawing) planned against the limits before a pixel is decoded, each
/// within its working memory (several from one shared decode where they can share it), and
/// handed to `VariantDelivery`. An SVG or PDF is drawn first by a renderer process, at the
/// scale each output needs. Worker threads run it.
final class TransformStage: Sendable {
    /// Transforms run to completion (successful or not); dropped and refused ones do not count.
    let transformsRun: Counter
    /// Transforms stopped while they ran because nobody wanted them any more.
    let transformsCancelled: Counter
    private let limits: ThumbnailLimits
    private let memory: MemoryBudget
    private let flights: SingleFlight<ThumbnailAnswer>
    /// SVG and PDF pages, drawn by renderer processes; nil: none (415).
    private let vectors: VectorSources?
    private let faces: FaceStage
    private let delivery: VariantDelivery
    private let clock: any MonotonicClock

    init(limits: ThumbnailLimits, memory: MemoryBudget, flights: SingleFlight<ThumbnailAnswer>, vectors: VectorSources?,
         faces: FaceStage, delivery: VariantDelivery, transformsRun: Counter, transformsCancelled: Counter, clock: any MonotonicClock) {
        self.limits = limits
        self.memory = memory
        self.flights = flights
        self.vectors = vectors
        self.faces = faces
        self.delivery = delivery
        self.transformsRun = transformsRun
        self.transformsCancelled = transformsCancelled
        self.clock = clock
    }

    /// `pending`'s thumbnails of `loaded`, each made and delivered, or failed.
    func make(_ pending: [SourceBatches.Item], of name: SourceName, from loaded: LoadedSource) {
        if ImageFormat.sniff(loaded.bytes)?.isVector == true { return makeDrawn(pending, of: name, from: loaded) }
        var planned: [PlannedTransform] = []
        for item in pending {
            let identity = item.request.identity(of: name, at: loaded.version)
            switch plan(loaded, identity, item) {
            case .success(let transform): planned.append(transform)
            case .failure(let failure): delivery.fail(item.flight, failure, identity: identity, since: clock.now())
            }
        }
        // Several sizes from one decode, held while each is made: one reservation for the
        // decode and the largest of them covers the batch.
        if planned.count > 1, let first = planned.first, let largest = planned.map(\.estimate).max(),
           let decodeBytes = SharedDecode.estimate(header: first.header, for: planned.map(\.identity.options)) {
            let flightsOfBatch = planned.map(\.item.flight)
            let unwanted: @Sendable () -> Bool = { [flights] in flightsOfBatch.allSatisfy(flights.isUnwanted) }
            let reserved = memory.withReserved(decodeBytes + largest, abandoned: unwanted) {
                let shared = try? SharedDecode(loaded.bytes, header: first.header, for: planned.map(\.identity.options),
                                               stop: StopCheck(unwanted))
                for transform in planned { run(transform, of: name, from: loaded, shared: shared, reserved: true) }
            }
            switch reserved {
            case .success: return
            case .failure(.abandoned): return planned.forEach { _ = flights.abandonIfUnwanted($0.item.flight) }
            case .failure(.overLimit): break  // each made alone, if it fits alone
            }
        }
        for transform in planned { run(transform, of: name, from: loaded, shared: nil, reserved: false) }
    }

    /// Thumbnails of an SVG or PDF, each made from a drawing of its page at the scale its
    /// output needs, drawn by a renderer process within the working memory reserved for it;
    /// then planned and made from the drawing like any raster.
    private func makeDrawn(_ pending: [SourceBatches.Item], of name: SourceName, from loaded: LoadedSource) {
        for item in pending {
            let identity = item.request.identity(of: name, at: loaded.version)
            let started = clock.now()
            switch drawing(loaded, of: name, identity, item.flight) {
            case .success(let (source, options)):
                switch plan(source, identity, item, options: options) {
                case .success(let transform): run(transform, of: name, from: source, shared: nil, reserved: false)
                case .failure(let failure): delivery.fail(item.flight, failure, identity: identity, since: started)
                }
            case .failure(let failure): delivery.fail(item.flight, failure, identity: identity, since: started)
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
    /// delivers what it made, or its failure.
    private func run(_ transform: PlannedTransform, of name: SourceName, from source: LoadedSource, shared: SharedDecode?,
                     reserved: Bool) {
        let flight = transform.item.flight, identity = transform.identity
        // Its clients may have gone while the source loaded or others were made.
        if flights.abandonIfUnwanted(flight) { return }
        let started = clock.now()
        let stop = stopCheck(flight)
        let found: [PixelRect]
        switch faces.faces(neededBy: identity.options, of: name, from: source) {
        case .success(let boxes): found = boxes
        case .failure(let error): return delivery.fail(flight, .imaging(error), identity: identity, since: started)
        }
        func transformed() throws(ImagingError) -> ImageTransformer.Output {
            defer { transformsRun.increment() }
            return try ImageTransformer.transform(source.bytes, header: transform.header, options: transform.options, faces: found,
                                                  watermark: transform.watermark, shared: shared, stop: stop)
        }
        let output: ImageTransformer.Output
        do throws(ImagingError) {
            if reserved {
                output = try transformed()
            } else {
                switch try memory.withReserved(transform.estimate, abandoned: { flights.abandonIfUnwanted(flight) }, transformed) {
                case .success(let made): output = made
                case .failure(.abandoned): return  // its flight is released
                case .failure(.overLimit(let needed, let limit)):
                    return delivery.fail(flight, .workingMemory(needed: needed, limit: limit), identity: identity, since: started)
                }
            }
        } catch .cancelled {
            transformsCancelled.increment()
            // Someone may have joined as it stopped: they are told to ask again.
            if flights.abandonIfUnwanted(flight) { return }
            return delivery.fail(flight, .imaging(.cancelled), identity: identity, since: started)
        } catch {
            return delivery.fail(flight, .imaging(error), identity: identity, since: started)
        }
        delivery.deliver(output, of: identity, name: name, from: source, flight: flight, seconds: clock.now() - started)
    }
}
