import Foundation

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
final class TransferLedger: @unchecked Sendable {
    struct Summary: Sendable {
        var bytesScrolledAway = 0
        var bytesAhead = 0
        var bytesAheadNeverShown = 0
        /// The `N` of every completed `Range: bytes=N-` answered with a 206.
        var bytesSavedByResume = 0
        var resumes = 0
    }

    private let lock = NSLock()
    private var visible: Set<URL> = []
    private var everVisible: Set<URL> = []
    private var totals = Summary()
    private var aheadByURL: [URL: Int] = [:]

    /// What is in view from now on. Set before the strategy hears of cells that left, so the
    /// cancellations that follow are judged against the new screen.
    func setVisible(_ urls: Set<URL>) {
        lock.guarded {
            visible = urls
            everVisible.formUnion(urls)
        }
    }

    func record(_ report: LinkTransferReport) {
        lock.guarded {
            if report.completed, report.statusCode == 206, let start = report.rangeStart {
                totals.bytesSavedByResume += start
                totals.resumes += 1
            }
            // Bytes for what is on screen are what the user waits for: not counted apart.
            if visible.contains(report.url) { return }
            if everVisible.contains(report.url) {
                totals.bytesScrolledAway += report.bytes
            } else {
                totals.bytesAhead += report.bytes
                aheadByURL[report.url, default: 0] += report.bytes
            }
        }
    }

    /// The figures so far; prefetched bytes for images that never came into view are known
    /// only now.
    func summary() -> Summary {
        lock.guarded {
            var result = totals
            result.bytesAheadNeverShown = aheadByURL.filter { !everVisible.contains($0.key) }.values.reduce(0, +)
            return result
        }
    }
}
