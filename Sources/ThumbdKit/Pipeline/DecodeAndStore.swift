import Foundation
import Locking

/// The last stage of every flight, and the only one that writes the tiers: bytes become the
/// app's image (its `decode`, failures as `decodingFailed`), and the answer is kept as HTTP
/// allows. Each kind of answer is counted here, where it is made.
struct DecodeAndStore<Image: Sendable>: Sendable {
    let decode: @Sendable (Data) throws -> Image
    let cost: @Sendable (Image, Data) -> Int
    let memory: MemoryImageCache<Image>
    let disk: DiskResponseCache?
    let partials: PartialDownloadStore
    let stats: Locked<LoaderCounters>
    let now: @Sendable () -> Date

    /// A fresh disk entry: decoded, and kept in memory for the next load.
    func diskHit(info: CachedResponseInfo, body: Data, for flight: LoadFlight<Image>) throws -> ImageResponse<Image> {
        let image = try decodeImage(body)
        memory.insert(.init(image: image, info: info, cost: cost(image, body)), for: flight.key)
        stats.withLock { $0.diskHits += 1 }
        return ImageResponse(image: image, url: flight.url, outcome: .disk, bytesReceived: 0)
    }

    /// After a 304: the stale entry with its refreshed facts, its image reused (from memory)
    /// or decoded (from disk), in both tiers.
    func revalidated(_ stale: StaleEntry<Image>, as info: CachedResponseInfo, for flight: LoadFlight<Image>) throws -> ImageResponse<Image> {
        let image: Image
        let entryCost: Int
        if let kept = stale.image, let keptCost = stale.cost {
            image = kept
            entryCost = keptCost
        } else if let body = stale.body {
            image = try decodeImage(body)
            entryCost = cost(image, body)
        } else {
            throw ThumbdLoadError.invalidResponse("304 without a stored entry")
        }
        memory.insert(.init(image: image, info: info, cost: entryCost), for: flight.key)
        if let body = stale.body {
            disk?.storeResponse(body, info: info, for: flight.key)
        } else {
            disk?.refreshResponse(for: flight.key, from: stale.info, to: info)
        }
        stats.withLock { $0.revalidations += 1 }
        return ImageResponse(image: image, url: flight.url, outcome: .revalidated, bytesReceived: 0)
    }

    /// A 200, or a 206 that completed kept bytes: checked against its length, decoded, and
    /// kept in both tiers unless the response forbids storing it. `hadPartial`: kept bytes
    /// were offered, and are now used up or outdated.
    func downloaded(_ result: NetworkTransfer.Result, for flight: LoadFlight<Image>, hadPartial: Bool) throws -> ImageResponse<Image> {
        let key = flight.key
        let response = result.response
        let resumed = result.resumedFrom != nil
        guard response.statusCode == 200 || (response.statusCode == 206 && resumed) else {
            if response.statusCode == 304 { throw ThumbdLoadError.invalidResponse("304 to a request without validators") }
            throw ThumbdLoadError.httpStatus(response.statusCode)
        }
        if hadPartial || resumed { partials.discard(key) }
        if let expected = result.expectedLength, expected != result.body.count {
            throw ThumbdLoadError.lengthMismatch(expected: expected, received: result.body.count)
        }
        let image = try decodeImage(result.body)
        if CachedResponseInfo.isStorable(response) {
            let info = CachedResponseInfo(response: response, bodyLength: result.body.count, receivedAt: now())
            memory.insert(.init(image: image, info: info, cost: cost(image, result.body)), for: key)
            disk?.storeResponse(result.body, info: info, for: key)
        } else {
            // no-store: kept in neither tier, and an older copy must not outlive it.
            memory.remove(key)
            disk?.removeResponse(for: key)
        }
        stats.withLock {
            if resumed { $0.resumes += 1 } else { $0.networkLoads += 1 }
        }
        return ImageResponse(image: image, url: flight.url, outcome: resumed ? .resumed : .network, bytesReceived: result.bytesReceived)
    }

    private func decodeImage(_ data: Data) throws -> Image {
        do {
            return try decode(data)
        } catch {
            throw ThumbdLoadError.decodingFailed(String(describing: error))
        }
    }
}
