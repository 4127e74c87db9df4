import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one flight does, in a detached task (so disk reads and `decode` never run on the
/// caller's actor): the disk tier, then a conditional request for a stale entry, a resume for
/// kept bytes, or a plain request.
extension ThumbdLoader {
    /// A stale entry to revalidate, with what a 304 needs to answer from it.
    private struct StaleEntry {
        var info: CachedResponseInfo
        /// From the disk tier: decoded on a 304.
        var body: Data?
        /// From the memory tier: reused as is on a 304.
        var image: Image?
        var cost: Int?
    }

    func resolve(_ flight: LoadFlight<Image>) async throws -> ImageResponse<Image> {
        let key = flight.key
        var stale: StaleEntry?
        if let entry = flight.staleMemory {
            stale = StaleEntry(info: entry.info, body: nil, image: entry.image, cost: entry.cost)
        } else if let disk, let stored = disk.response(for: key) {
            if stored.info.isFresh(at: configuration.now()) {
                let image = try decodeImage(stored.body)
                memory.insert(.init(image: image, info: stored.info, cost: cost(image, stored.body)), for: key)
                stats.withLock { $0.diskHits += 1 }
                return ImageResponse(image: image, url: flight.url, outcome: .disk, bytesReceived: 0)
            }
            stale = StaleEntry(info: stored.info, body: stored.body, image: nil, cost: nil)
        }
        try Task.checkCancellation()

        if let stale, stale.info.canRevalidate {
            let result = try await transfer(for: flight, validators: stale.info, resumingFrom: nil)
            if result.response.statusCode == 304 {
                return try revalidated(flight, stale, by: result.response)
            }
            return try complete(flight, result, hadPartial: false)
        }
        let partial = partials.partial(for: key)
        let result = try await transfer(for: flight, validators: nil, resumingFrom: partial)
        return try complete(flight, result, hadPartial: partial != nil)
    }

    /// A 304: the stale entry is current again, with refreshed freshness; no body came.
    private func revalidated(_ flight: LoadFlight<Image>, _ stale: StaleEntry, by response: TransportResponse) throws -> ImageResponse<Image> {
        let info = stale.info.refreshed(by: response, at: configuration.now())
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
    /// kept in both tiers unless the response forbids storing it.
    private func complete(_ flight: LoadFlight<Image>, _ result: NetworkTransfer.Result, hadPartial: Bool) throws -> ImageResponse<Image> {
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
            let info = CachedResponseInfo(response: response, bodyLength: result.body.count, receivedAt: configuration.now())
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

    /// One request, restarted once without `Range` when a resume does not fit. A transfer that
    /// fails keeps its bytes for the next attempt (a cancelled one was kept by `leave`).
    private func transfer(for flight: LoadFlight<Image>, validators: CachedResponseInfo?,
                          resumingFrom kept: PartialDownload?) async throws -> NetworkTransfer.Result {
        var partial = kept?.ifRange == nil ? nil : kept
        while true {
            var request = URLRequest(url: flight.url)
            request.setValue(configuration.accept, forHTTPHeaderField: "Accept")
            if let validators {
                if let etag = validators.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
                if let lastModified = validators.lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
            }
            if let partial, let ifRange = partial.ifRange {
                request.setValue("bytes=\(partial.data.count)-", forHTTPHeaderField: "Range")
                request.setValue(ifRange, forHTTPHeaderField: "If-Range")
            }
            let stats = self.stats
            let transfer = NetworkTransfer(resumingFrom: partial, onBytes: { count in stats.withLock { $0.bytesReceived += count } })
            guard let priority = flights.register(transfer, in: flight) else { throw CancellationError() }
            stats.withLock { $0.requestsSent += 1 }
            let outcome: NetworkTransfer.Outcome
            let sent = request
            do {
                outcome = try await withTaskCancellationHandler {
                    try await transfer.run(on: transport, request: sent, priority: priority.transferPriority)
                } onCancel: {
                    transfer.stop()
                }
            } catch {
                flights.unregister(transfer, from: flight)
                if let keptNow = transfer.takePartial(key: flight.key) { partials.keep(keptNow) }
                throw error
            }
            flights.unregister(transfer, from: flight)
            switch outcome {
            case .finished(let result):
                return result
            case .restart:
                partials.discard(flight.key)
                partial = nil
                stats.withLock { $0.restarts += 1 }
            }
        }
    }

    private func decodeImage(_ data: Data) throws -> Image {
        do {
            return try decode(data)
        } catch {
            throw ThumbdLoadError.decodingFailed(String(describing: error))
        }
    }
}
