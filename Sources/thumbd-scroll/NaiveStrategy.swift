import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ThumbdKit

/// The grid as it is often first written: when a cell appears, its item's original goes on one
/// serial download queue; nothing is cancelled or cached; when a download ends, its image is
/// assigned to the cell it was started for, whatever that cell shows by then (the wrong-image
/// bug of reused cells). A full-screen view queues its original the same way.
@MainActor
final class NaiveStrategy: LoadingStrategy {
    private enum Target {
        case cell(GridCell)
        case fullScreen(FullScreenView)
    }

    private struct Job {
        let item: Int
        let url: URL
        let target: Target
    }

    private let transport: any ThumbdTransport
    private let recorder: ScrollRecorder
    private let originals: [URL]
    private var jobs: [Job] = []
    private var nextJob = 0
    private var worker: Task<Void, Never>?
    private var stopped = false
    private(set) var failures = 0
    let transfersCancelled = 0

    init(originals: [URL], transport: any ThumbdTransport, recorder: ScrollRecorder) {
        self.originals = originals
        self.transport = transport
        self.recorder = recorder
    }

    func cellURL(for item: Int) -> URL { originals[item] }
    func fullScreenURL(for item: Int) -> URL { originals[item] }
    func prepare(_ cell: GridCell) {}

    func willDisplay(_ cell: GridCell, item: Int) {
        enqueue(Job(item: item, url: originals[item], target: .cell(cell)))
    }

    /// Never cancelled: the download goes on, and lands on whatever the cell shows then.
    func didEndDisplaying(_ cell: GridCell) {}

    func visibleItemsChanged(visible: Range<Int>, ahead: [Int]) {}

    func open(_ view: FullScreenView) {
        enqueue(Job(item: view.item, url: view.url, target: .fullScreen(view)))
    }

    /// The download goes on; the closed view simply is not there to show it.
    func close(_ view: FullScreenView) {}

    func stop(cells: [GridCell]) {
        stopped = true
        worker?.cancel()
        worker = nil
        jobs.removeAll()
        nextJob = 0
    }

    func finish() {}

    private func enqueue(_ job: Job) {
        guard !stopped else { return }
        jobs.append(job)
        if worker == nil {
            worker = Task { [weak self] in
                guard let self else { return }
                await self.drain()
            }
        }
    }

    /// One download at a time, in the order cells appeared.
    private func drain() async {
        while !stopped, nextJob < jobs.count {
            let job = jobs[nextJob]
            nextJob += 1
            if nextJob >= 4096 {
                jobs.removeFirst(nextJob)
                nextJob = 0
            }
            do {
                let (response, _) = try await transport.response(for: URLRequest(url: job.url))
                guard response.statusCode == 200 else {
                    failures += 1
                    continue
                }
                show(job)
            } catch {
                if stopped || error is CancellationError { break }
                failures += 1
            }
        }
        if !stopped { worker = nil }
    }

    private func show(_ job: Job) {
        switch job.target {
        case .cell(let cell): recorder.cellReceived(cell, item: job.item, outcome: .network)
        case .fullScreen(let view): recorder.fullScreenReceived(view, outcome: .network)
        }
    }
}
