/// The purge of one source from every tier thumbd keeps: this replica's memory and disk
/// tiers (and, for a remote original or a bucket's image, the original kept of it); then, with
/// a shared tier, its objects there and a record every other replica applies to its own tiers
/// (`SharedPurges`, followed by `PurgeFollower`); last, with a CDN in front (`cdn.kind`), the
/// answers it filed under the source's tag (`CDNPurge`, asked by this replica only). Blocking:
/// a worker thread runs it.
package struct SourcePurge: Sendable {
    let store: VariantStore
    /// The shared tier's objects; nil without one.
    let shared: SharedTier?
    let originals: RemoteOriginals?
    /// The folder or the bucket: names a path's keys, and holds a bucket's original.
    let library: any LibraryBackend
    /// Nil without a shared tier.
    package let cluster: SharedPurges?
    /// Nil without a CDN in front.
    package let cdn: CDNPurge?

    package init(store: VariantStore, shared: SharedTier?, originals: RemoteOriginals?, library: any LibraryBackend,
                 cluster: SharedPurges?, cdn: CDNPurge? = nil) {
        self.store = store
        self.shared = shared
        self.originals = originals
        self.library = library
        self.cluster = cluster
        self.cdn = cdn
    }

    /// The purge asked of this replica: local, then shared, then told to the others, whose
    /// confirmations are waited for about two rounds of their following; then the CDN, so that
    /// what it asks for again is made anew.
    package func run(_ target: PurgeTarget) -> PurgeOutcome {
        // A folder's images, listed once for every tier.
        let paths = target.libraryPaths(in: library)
        var outcome = PurgeOutcome(removed: local(target, paths: paths))
        if let cluster { outcome.cluster = beyond(target, paths: paths, cluster) }
        outcome.cdn = cdn?.purge(tags: [target.cdnTag(in: library)])
        return outcome
    }

    /// The shared tier's objects of the source, and the record the other replicas apply.
    private func beyond(_ target: PurgeTarget, paths: [LibraryPath], _ cluster: SharedPurges) -> PurgeOutcome.Cluster {
        var removedShared: Int?
        // The tier files objects by source: a folder's are those of each image listed under it.
        let prefixes = switch target {
        case .folder: paths.map { library.sourceName($0).keyPrefix }
        case .library, .remote: [target.keyPrefix(in: library)]
        }
        for prefix in prefixes {
            switch shared?.removeAll(sourcePrefix: prefix) {
            case .success(let count): removedShared = (removedShared ?? 0) + count
            // A denial is the operator's to mend: said as what it is, nothing published.
            case .failure(let error) where error.isRefusal: return .refused(error)
            case .failure, nil: break
            }
        }
        let replicas: PurgeOutcome.Replicas
        if let record = cluster.publish(PurgeRecord(target: target)) {
            replicas = cluster.confirmations(of: record, waitingUpTo: cluster.interval * 2 + 1)
        } else {
            replicas = PurgeOutcome.Replicas(confirmed: [cluster.replica], pending: [], unpublished: true)
        }
        return .reached(shared: removedShared, replicas: replicas)
    }

    /// Another replica's purge, applied to this one's own tiers.
    package func apply(_ record: PurgeRecord) {
        _ = local(record.target, paths: record.target.libraryPaths(in: library))
    }

    /// The source's (or the folder's) entries removed from this replica's tiers; how many went.
    func local(_ target: PurgeTarget, paths: [LibraryPath]) -> Int {
        let removed = store.purge(prefix: target.keyPrefix(in: library))
        switch target {
        case .library, .folder: return removed + paths.map(library.forget).reduce(0, +)
        case .remote(let url): return removed + (originals?.forget(url) ?? 0)
        }
    }
}
