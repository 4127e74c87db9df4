/// The first stage of a miss, and the one it comes back to: what a tier already holds for its
/// thumbnails, answered. The local tiers are cheap and asked whenever a version is learnt (the
/// one the request knew, the source's checked one, the loaded one: another miss may have made
/// the thumbnail meanwhile); the shared tier is a request to the store and asked once per key.
struct TierLookup {
    let store: VariantStore
    let flights: SingleFlight<ThumbnailAnswer>
    let name: SourceName
    /// Keys asked of the shared tier already in this miss.
    private var askedShared = Set<String>()

    init(store: VariantStore, flights: SingleFlight<ThumbnailAnswer>, name: SourceName) {
        self.store = store
        self.flights = flights
        self.name = name
    }

    /// Answers, and takes out of `pending`, every item whose thumbnail a tier holds at the
    /// version `version` gives it (nil: not known yet, left pending).
    mutating func answer(_ pending: inout [SourceBatches.Item], at version: (SourceBatches.Item) -> SourceVersion?) {
        pending.removeAll { item in
            guard let version = version(item) else { return false }
            let key = item.request.identity(of: name, at: version).key
            if let found = store.variant(key) {
                flights.finish(item.flight, with: .variant(VariantAnswer(variant: found.variant, tier: found.tier, steps: [])))
                return true
            }
            guard store.shared != nil, askedShared.insert(key.hash).inserted,
                  let variant = store.sharedVariant(key, sourcePrefix: name.keyPrefix) else { return false }
            flights.finish(item.flight, with: .variant(VariantAnswer(variant: variant, tier: .shared, steps: [])))
            return true
        }
    }
}
