/// What one purge came to.
package struct PurgeOutcome: Sendable {
    /// Which live replicas have applied a purge.
    package struct Replicas: Sendable, Equatable {
        package var confirmed: [String]
        package var pending: [String]
        /// The store did not take the record: the other replicas keep what they hold.
        package var unpublished = false

        package init(confirmed: [String], pending: [String], unpublished: Bool = false) {
            self.confirmed = confirmed
            self.pending = pending
            self.unpublished = unpublished
        }
    }

    /// The purge beyond this replica, with a shared tier.
    package enum Cluster: Sendable {
        /// The shared tier's store refused to remove the source's objects (its keys, the
        /// bucket's policy): nothing was published, the operator has to mend it.
        case refused(S3Error)
        /// The source's objects removed from the shared tier (nil: they could not be listed
        /// or removed), and the replicas that applied the record.
        case reached(shared: Int?, replicas: Replicas)
    }

    /// Entries removed from this replica's memory and disk tiers (and its kept original).
    package var removed: Int
    /// Nil without a shared tier.
    package var cluster: Cluster?
    /// Nil without a CDN in front.
    package var cdn: CDNPurgeOutcome?
}
