import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking

/// Loads thumbd images for an app's grid: memory and disk tiers that follow HTTP caching,
/// one transfer per URL however many ask (coalescing), prompt cancellation, resume of
/// stopped transfers with `Range` + `If-Range`, and prefetching.
///
/// Generic over the app's image type: `decode` turns response bytes into it and always runs
/// off the caller's actor (in a detached task), never on the main thread of a caller there.
/// `cost` weighs decoded images for the memory tier (decoded size in bytes, typically
/// `width * height * 4`; the default is the encoded size).
///
///     let loader = ThumbdLoader<UIImage>(decode: { data in
///         guard let image = UIImage(data: data)?.preparingForDisplay() else { throw DecodeError() }
///         return image
///     }, cost: { image, _ in Int(image.size.width * image.size.height * image.scale * image.scale * 4) })
///     let response = try await loader.load(url)   // response.image, .outcome, .bytesReceived
public final class ThumbdLoader<Image: Sendable>: Sendable {
    public let configuration: ThumbdLoaderConfiguration
    let memory: MemoryImageCache<Image>
    let disk: DiskResponseCache?
    let partials: PartialDownloadStore
    let stats: Locked<LoaderCounters>
    let prefetches = Locked(PrefetchQueue())
    /// The loads under way, one per cache key, and who waits for each.
    let flights: FlightTable<Image>

    // The stages of a flight, in the order `resolve` runs them.
    let lookup: DiskTierLookup<Image>
    let revalidation: Revalidation<Image>
    let download: Download<Image>
    let store: DecodeAndStore<Image>

    public init(configuration: ThumbdLoaderConfiguration = ThumbdLoaderConfiguration(),
                transport: any ThumbdTransport = URLSessionTransport(),
                decode: @escaping @Sendable (Data) throws -> Image,
                cost: @escaping @Sendable (Image, Data) -> Int = { _, data in data.count }) {
        self.configuration = configuration
        let memory = MemoryImageCache<Image>(capacity: configuration.memoryCapacity)
        self.memory = memory
        let disk = configuration.diskDirectory.flatMap { DiskResponseCache(directory: $0, capacityBytes: configuration.diskCapacity) }
        self.disk = disk
        let partials = PartialDownloadStore(capacityBytes: configuration.partialDownloadMemory, disk: disk)
        self.partials = partials
        let stats = Locked(LoaderCounters())
        self.stats = stats
        let flights = FlightTable<Image>()
        self.flights = flights
        lookup = DiskTierLookup(disk: disk, now: configuration.now)
        let download = Download(transport: transport, accept: configuration.accept, flights: flights, partials: partials, stats: stats)
        self.download = download
        revalidation = Revalidation(download: download, now: configuration.now)
        store = DecodeAndStore(decode: decode, cost: cost, memory: memory, disk: disk, partials: partials, stats: stats,
                               now: configuration.now)
    }

    // MARK: - Loading

    /// The image at `url`: from memory when fresh (no suspension of note), else from the disk
    /// tier, a revalidation, a resume or a full download, shared with every other load of the
    /// same URL under way. Cancelling the calling task answers it with `CancellationError` at
    /// once; the transfer stops when no other load waits for it, and its bytes are kept for
    /// a resume.
    public func load(_ url: URL, priority: LoadPriority = .normal) async throws -> ImageResponse<Image> {
        let key = cacheKey(for: url)
        let entry = memory.entry(for: key)
        if let hit = freshMemoryHit(entry, url: url) {
            stats.withLock {
                $0.loads += 1
                $0.memoryHits += 1
            }
            return hit
        }
        stats.withLock { $0.loads += 1 }
        try Task.checkCancellation()
        let id = flights.registerWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: FlightTable<Image>.Continuation) in
                join(id, key: key, url: url, priority: priority, stale: entry, continuation: continuation)
            }
        } onCancel: {
            leave(id)
        }
    }

    /// A fresh memory hit for `url`, synchronously (counted as a load): what a cell shows at
    /// once when it is bound, before anything is awaited.
    public func cachedResponse(for url: URL) -> ImageResponse<Image>? {
        guard let hit = freshMemoryHit(memory.entry(for: cacheKey(for: url)), url: url) else { return nil }
        stats.withLock {
            $0.loads += 1
            $0.memoryHits += 1
        }
        return hit
    }

    /// A memory-tier entry as a hit when it is fresh; nil when absent or stale.
    func freshMemoryHit(_ entry: MemoryImageCache<Image>.Entry?, url: URL) -> ImageResponse<Image>? {
        guard let entry, entry.info.isFresh(at: configuration.now()) else { return nil }
        return ImageResponse(image: entry.image, url: url, outcome: .memory, bytesReceived: 0)
    }

    /// The memory tier's image for `url`, fresh or stale (a placeholder while revalidating).
    public func memoryImage(for url: URL) -> Image? {
        memory.entry(for: cacheKey(for: url))?.image
    }

    /// The key of both tiers: the `Accept` the loader sends and the URL, so answers that vary
    /// by `Accept` (`fm=auto`) are kept per negotiated format.
    public func cacheKey(for url: URL) -> String {
        configuration.accept + " " + url.absoluteString
    }

    // MARK: - Cache management

    /// Forgets `url` in both tiers, and any kept partial download of it.
    public func removeCachedResponse(for url: URL) {
        let key = cacheKey(for: url)
        memory.remove(key)
        disk?.removeResponse(for: key)
        partials.discard(key)
    }

    public func removeAllCachedResponses() {
        memory.removeAll()
        disk?.removeAll()
        partials.removeAll()
    }

    /// Bytes kept of a stopped transfer of `url` (memory, else disk), ready for a resume.
    public func partialDownloadSize(for url: URL) -> Int? {
        partials.partial(for: cacheKey(for: url))?.data.count
    }

    /// Waits until kept partial downloads have reached the disk (they are written in the
    /// background so a cancel on the main thread does not wait for the disk).
    public func waitForDiskWrites() {
        partials.flush()
    }

    /// A snapshot of the loader-wide counters.
    public var counters: LoaderCounters {
        var snapshot = stats.withLock { $0 }
        snapshot.loadsInFlight = flights.count
        return snapshot
    }

    public var memoryUsage: (entries: Int, cost: Int) { memory.usage }

    /// Files and bytes of the disk tier, nil without one.
    public var diskUsage: (files: Int, bytes: Int)? {
        guard let usage = disk?.usage else { return nil }
        return (usage.files, usage.bytes)
    }

    // MARK: - Coalescing and cancellation

    private func join(_ id: UInt64, key: String, url: URL, priority: LoadPriority, stale: MemoryImageCache<Image>.Entry?,
                      continuation: FlightTable<Image>.Continuation) {
        let step = flights.join(id, key: key, url: url, priority: priority, staleMemory: stale, continuation: continuation) {
            freshMemoryHit(memory.entry(for: key), url: url)
        }
        switch step {
        case .cancelled:
            continuation.resume(throwing: CancellationError())
        case .hit(let response):
            stats.withLock { $0.memoryHits += 1 }
            continuation.resume(returning: response)
        case .joined(let transfer, let raised):
            stats.withLock { $0.coalesced += 1 }
            if let raised { transfer?.setPriority(raised.transferPriority) }
        case .started(let flight):
            let task = Task.detached(priority: priority.taskPriority) { [self] in
                await run(flight)
            }
            // Every waiter left before the task was attached (or it has already finished).
            if !flights.attach(task, to: flight) { task.cancel() }
        }
    }

    /// The caller of waiter `id` cancelled: answer it now; stop the flight if nobody else waits.
    private func leave(_ id: UInt64) {
        switch flights.leave(id) {
        case .nothing:
            return
        case .answer(let continuation, let lower):
            if let lower { lower.0.setPriority(lower.1.transferPriority) }
            continuation.resume(throwing: CancellationError())
        case .abandon(let continuation, let flight, let transfer, let task):
            // Keep what arrived before the caller hears of the cancellation, so a load made
            // right after it resumes from there.
            if let transfer {
                if let partial = transfer.stop(keepingPartialFor: flight.key) { partials.keep(partial) }
                stats.withLock { $0.transfersCancelled += 1 }
            }
            task?.cancel()
            continuation.resume(throwing: CancellationError())
        }
    }

    private func run(_ flight: LoadFlight<Image>) async {
        let result: Result<ImageResponse<Image>, any Error>
        do {
            result = .success(try await resolve(flight))
        } catch let error as ThumbdLoadError {
            result = .failure(error)
        } catch let error as CancellationError {
            result = .failure(error)
        } catch {
            result = .failure(ThumbdLoadError.transport(String(describing: error)))
        }
        let continuations = flights.finish(flight)
        if case .failure = result, !continuations.isEmpty {
            stats.withLock { $0.failures += 1 }
        }
        for continuation in continuations { continuation.resume(with: result) }
    }
}
