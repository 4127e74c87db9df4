import HTTP
import Locking

/// The gallery's pages, each made once per library snapshot (its fingerprint) and kept, so
/// `GET /` costs what a thumbnail hit costs until the library changes. Pages of an older
/// fingerprint are dropped when a newer one is kept; within one, the oldest pages go first
/// once `byteBudget` is spent.
final class GalleryPages: Sendable {
    /// A page as asked: its number (already within the library's pages) and whether the
    /// self-test script is in it.
    struct Key: Hashable, Sendable {
        var page: Int
        var selftest: Bool
    }

    private struct State {
        var fingerprint = ""
        var pageCount = 1
        var pages: [Key: Representation] = [:]
        var order: [Key] = []
        var bytes = 0
        /// Jobs reading the library again; while one runs, askers get the last page kept.
        var refreshing = 0

        /// The page kept under `page`, its number clamped to the pages of the kept snapshot.
        func page(_ page: Int, selftest: Bool) -> Representation? {
            pages[Key(page: min(page, pageCount), selftest: selftest)]
        }
    }

    let byteBudget: Int
    private let state = Locked(State())

    init(byteBudget: Int = 8 << 20) {
        self.byteBudget = byteBudget
    }

    /// The page kept for `fingerprint` (nil: for whichever snapshot was kept last), its number
    /// clamped to the pages that snapshot has.
    func kept(page: Int, selftest: Bool, fingerprint: String?) -> Representation? {
        state.withLock { s in
            guard fingerprint == nil || fingerprint == s.fingerprint else { return nil }
            return s.page(page, selftest: selftest)
        }
    }

    /// The page kept while another asker is reading the library again: the walk is under way,
    /// and the last page is at most one walk older than its answer would be.
    func keptWhileRefreshing(page: Int, selftest: Bool) -> Representation? {
        state.withLock { s in
            guard s.refreshing > 0 else { return nil }
            return s.page(page, selftest: selftest)
        }
    }

    /// Marks a job that will read the library again; `refreshed()` ends it.
    func refreshing() { state.withLock { $0.refreshing += 1 } }
    func refreshed() { state.withLock { $0.refreshing -= 1 } }

    /// Keeps `page` made from the snapshot `fingerprint` of `pageCount` pages, and returns it.
    @discardableResult
    func keep(_ page: Representation, _ key: Key, fingerprint: String, pageCount: Int) -> Representation {
        state.withLock { s in
            if s.fingerprint != fingerprint {
                s.fingerprint = fingerprint
                s.pages = [:]
                s.order = []
                s.bytes = 0
            }
            s.pageCount = pageCount
            guard s.pages[key] == nil else { return }
            s.pages[key] = page
            s.order.append(key)
            s.bytes += Int(page.body.count)
            while s.bytes > byteBudget, s.order.count > 1 {
                let oldest = s.order.removeFirst()
                s.bytes -= Int(s.pages.removeValue(forKey: oldest)?.body.count ?? 0)
            }
        }
        return page
    }

    /// Pages kept (the tests read it).
    var count: Int { state.withLock { $0.pages.count } }
}
