import Foundation

/// The stage for a stale entry with validators: a conditional request (`If-None-Match`,
/// `If-Modified-Since`). A 304 means the entry is current again, with the freshness the 304
/// gives it; any other answer replaces it.
struct Revalidation<Image: Sendable>: Sendable {
    enum Answer {
        /// The stale entry's facts, refreshed by the 304 (no body came).
        case notModified(CachedResponseInfo)
        /// A new response, to be decoded and stored like any download.
        case replaced(NetworkTransfer.Result)
    }

    let download: Download<Image>
    let now: @Sendable () -> Date

    func check(_ stale: StaleEntry<Image>, for flight: LoadFlight<Image>) async throws -> Answer {
        let result = try await download.fetch(flight, validators: stale.info)
        guard result.response.statusCode == 304 else { return .replaced(result) }
        return .notModified(stale.info.refreshed(by: result.response, at: now()))
    }
}
