import Foundation

/// The first stage of a flight: what the tiers already hold. A stale memory entry (found by
/// `load` before the flight began) spares the disk read; otherwise the disk tier answers with
/// a fresh entry, a stale one, or nothing.
struct DiskTierLookup<Image: Sendable>: Sendable {
    enum Found {
        /// Usable without asking the server: to be decoded.
        case fresh(info: CachedResponseInfo, body: Data)
        /// To be revalidated (or, without validators, fetched anew).
        case stale(StaleEntry<Image>)
        case nothing
    }

    let disk: DiskResponseCache?
    let now: @Sendable () -> Date

    func find(_ flight: LoadFlight<Image>) -> Found {
        if let entry = flight.staleMemory { return .stale(StaleEntry(memory: entry)) }
        guard let stored = disk?.response(for: flight.key) else { return .nothing }
        if stored.info.isFresh(at: now()) { return .fresh(info: stored.info, body: stored.body) }
        return .stale(StaleEntry(disk: stored.info, body: stored.body))
    }
}
