import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking

/// The network stage of a flight: one request with the loader's `Accept`, conditional when
/// given validators, or resumed from kept bytes with `Range` + `If-Range`. A resume the server
/// cannot continue (another representation, another length, 416) is restarted once without
/// `Range`. A transfer that fails keeps its bytes for the next attempt (a cancelled one was
/// kept by the loader when its last caller left).
struct Download<Image: Sendable>: Sendable {
    let transport: any ThumbdTransport
    let accept: String
    /// Where each transfer is registered, so a cancel or a priority change reaches it.
    let flights: FlightTable<Image>
    let partials: PartialDownloadStore
    let stats: Locked<LoaderCounters>

    func fetch(_ flight: LoadFlight<Image>, validators: CachedResponseInfo? = nil,
               resumingFrom kept: PartialDownload? = nil) async throws -> NetworkTransfer.Result {
        // Bytes without a validator cannot be resumed safely.
        var partial = kept?.ifRange == nil ? nil : kept
        while true {
            let request = request(for: flight.url, validators: validators, resumingFrom: partial)
            let stats = self.stats
            let transfer = NetworkTransfer(resumingFrom: partial, onBytes: { count in stats.withLock { $0.bytesReceived += count } })
            guard let priority = flights.register(transfer, in: flight) else { throw CancellationError() }
            stats.withLock { $0.requestsSent += 1 }
            let outcome: NetworkTransfer.Outcome
            do {
                outcome = try await withTaskCancellationHandler {
                    try await transfer.run(on: transport, request: request, priority: priority.transferPriority)
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

    private func request(for url: URL, validators: CachedResponseInfo?, resumingFrom partial: PartialDownload?) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue(accept, forHTTPHeaderField: "Accept")
        if let validators {
            if let etag = validators.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let lastModified = validators.lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        }
        if let partial, let ifRange = partial.ifRange {
            request.setValue("bytes=\(partial.data.count)-", forHTTPHeaderField: "Range")
            request.setValue(ifRange, forHTTPHeaderField: "If-Range")
        }
        return request
    }
}
