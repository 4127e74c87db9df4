import Foundation
import Locking
import ThumbdKitTesting

/// Sorts the link's bytes by what was on screen when each transfer ended (completed, failed or
/// was cancelled mid-way), and counts what resumes saved.
///
/// - on screen: its image was in view (a visible cell, or the open full-screen view);
/// - scrolled away: not in view then, but it had been: bytes spent on cells the user had
///   already left (or a full-screen view already closed);
/// - ahead: never in view before: prefetching; at the end of the run, what never came into
///   view at all is counted apart.
///
/// Fed from the link's threads and from the simulation (on the main actor), so behind a lock.
final class TransferLedger: Sendable {
    struct Summary: Sendable {
        var bytesScrolledAway = 0
        var bytesAhead = 0
        var bytesAheadNeverShown = 0
        /// The `N` of every completed `Range: bytes=N-` answered with a 206.
        var bytesSavedByResume = 0
        var resumes = 0
    }

    private struct State {
        var visible: Set<URL> = []
        var everVisible: Set<URL> = []
        var totals = Summary()
        var aheadByURL: [URL: Int] = [:]
    }

    private let state = Locked(State())

    /// What is in view from now on. Set before the strategy hears of cells that left, so the
    /// cancellations that follow are judged against the new screen.
    func setVisible(_ urls: Set<URL>) {
        state.withLock { state in
            state.visible = urls
            state.everVisible.formUnion(urls)
        }
    }

    func record(_ report: LinkTransferReport) {
        state.withLock { state in
            if report.completed, report.statusCode == 206, let start = report.rangeStart {
                state.totals.bytesSavedByResume += start
                state.totals.resumes += 1
            }
            // Bytes for what is on screen are what the user waits for: not counted apart.
            if state.visible.contains(report.url) { return }
            if state.everVisible.contains(report.url) {
                state.totals.bytesScrolledAway += report.bytes
            } else {
                state.totals.bytesAhead += report.bytes
                state.aheadByURL[report.url, default: 0] += report.bytes
            }
        }
    }

    /// The figures so far; prefetched bytes for images that never came into view are known
    /// only now.
    func summary() -> Summary {
        state.withLock { state in
            var result = state.totals
            result.bytesAheadNeverShown = state.aheadByURL.filter { !state.everVisible.contains($0.key) }.values.reduce(0, +)
            return result
        }
    }
}
