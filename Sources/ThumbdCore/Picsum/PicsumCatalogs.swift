import Locking

/// The catalog of the library's current snapshot, made once per snapshot (per fingerprint:
/// the index walks the folder again every few seconds, and an unchanged walk keeps the
/// catalog it had).
package final class PicsumCatalogs: Sendable {
    private let index: LibraryIndex
    private let made = Locked<PicsumCatalog?>(nil)

    package init(index: LibraryIndex) {
        self.index = index
    }

    /// Reads the library's catalog again (a folder walk, a bucket listing) when the last read is
    /// old; throws when it cannot and none was kept. A worker thread calls it.
    package func current() throws -> PicsumCatalog { catalog(of: try index.current()) }

    /// While the last walk is recent, without blocking (the event loop may ask); else nil.
    package func fresh() -> PicsumCatalog? { index.fresh().map(catalog(of:)) }

    /// The catalog of a snapshot the caller already has (the gallery's page).
    package func catalog(of snapshot: LibraryIndex.Snapshot) -> PicsumCatalog {
        if let kept = made.withLock({ $0 }), kept.fingerprint == snapshot.fingerprint { return kept }
        let catalog = PicsumCatalog(snapshot)
        made.withLock { $0 = catalog }
        return catalog
    }
}
