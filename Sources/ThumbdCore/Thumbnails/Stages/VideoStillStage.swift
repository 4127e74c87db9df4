import Clocks
import Imaging
import Video

/// A video's stills, the stage before the transform for a video source: its misses grouped by
/// the still they are made of (a poster at one time, or the preview), and each still decoded
/// once within its working memory, as an image source whose thumbnails are made as any other's.
final class VideoStillStage: Sendable {
    /// Stills decoded, each for every thumbnail made of it.
    let made: Counter
    private let stills: VideoStills
    private let limits: VideoDecoder.Limits
    private let memory: MemoryBudget
    private let flights: SingleFlight<ThumbnailAnswer>
    private let metrics: any ServiceMetrics
    private let clock: any MonotonicClock

    init(limits: VideoDecoder.Limits, memory: MemoryBudget, flights: SingleFlight<ThumbnailAnswer>, made: Counter,
         metrics: any ServiceMetrics, clock: any MonotonicClock) {
        stills = VideoStills(limits: limits)
        self.limits = limits
        self.memory = memory
        self.flights = flights
        self.made = made
        self.metrics = metrics
        self.clock = clock
    }

    /// `pending` by the still each is made of, in the order they came.
    func groups(_ pending: [SourceBatches.Item], of name: SourceName, at version: SourceVersion)
        -> [(kind: VideoStills.Kind, items: [SourceBatches.Item])] {
        var groups: [(kind: VideoStills.Kind, items: [SourceBatches.Item])] = []
        for item in pending {
            let kind = VideoStills.kind(of: item.request.identity(of: name, at: version).options)
            if let index = groups.firstIndex(where: { $0.kind == kind }) {
                groups[index].items.append(item)
            } else {
                groups.append((kind, [item]))
            }
        }
        return groups
    }

    /// The still `items` are made of; nil when they were all abandoned while it waited for memory.
    func still(_ kind: VideoStills.Kind, of reader: VideoReader, version: SourceVersion,
               for items: [SourceBatches.Item]) -> Result<LoadedSource, ThumbnailFailure>? {
        let started = clock.now()
        let fetched = reader.bytesFetched
        let info: VideoInfo
        // Bounded: a stream without a frame size or over the pixel limit is refused here.
        do { info = try VideoDecoder.probe(reader, limits: limits) } catch { return .failure(.video(error)) }
        let flightsOfStill = items.map(\.flight)
        let decoded: Result<[UInt8], MemoryBudget.Refusal>
        do throws(ImagingOrVideoError) {
            decoded = try memory.withReserved(stills.estimate(kind, width: info.width, height: info.height),
                                              abandoned: { [flights] in flightsOfStill.allSatisfy(flights.isUnwanted) }) {
                () throws(ImagingOrVideoError) -> [UInt8] in try stills.still(kind, from: reader, duration: info.duration).bytes
            }
        } catch {
            switch error {
            case .video(let error): return .failure(.video(error))
            case .imaging(let error): return .failure(.imaging(error))
            }
        }
        switch decoded {
        case .success(let bytes):
            made.increment()
            metrics.videoStill(sourceBytes: reader.bytesFetched - fetched)
            return .success(LoadedSource(version: version, bytes: bytes, step: .frame(clock.now() - started), still: .video(kind)))
        case .failure(.abandoned):
            flightsOfStill.forEach { _ = flights.abandonIfUnwanted($0) }
            return nil
        case .failure(.overLimit(let needed, let limit)):
            return .failure(.workingMemory(needed: needed, limit: limit))
        }
    }
}
