import Foundation

/// What one flight does, in a detached task (so disk reads and `decode` never run on the
/// caller's actor): the tiers first, then a conditional request for a stale entry, a resume
/// for kept bytes, or a plain request; whatever arrives is decoded and stored.
extension ThumbdLoader {
    func resolve(_ flight: LoadFlight<Image>) async throws -> ImageResponse<Image> {
        let stale: StaleEntry<Image>?
        switch lookup.find(flight) {
        case .fresh(let info, let body): return try store.diskHit(info: info, body: body, for: flight)
        case .stale(let entry): stale = entry
        case .nothing: stale = nil
        }
        try Task.checkCancellation()

        if let stale, stale.info.canRevalidate {
            switch try await revalidation.check(stale, for: flight) {
            case .notModified(let info): return try store.revalidated(stale, as: info, for: flight)
            case .replaced(let result): return try store.downloaded(result, for: flight, hadPartial: false)
            }
        }
        let partial = partials.partial(for: flight.key)
        let result = try await download.fetch(flight, resumingFrom: partial)
        return try store.downloaded(result, for: flight, hadPartial: partial != nil)
    }
}
