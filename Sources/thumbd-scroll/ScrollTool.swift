import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ThumbdKit
import ThumbdKitTesting

/// The whole run: list the library, play the script once per strategy (each cold: a fresh
/// loader, disk folder and link), print the table and the `RESULT` line.
@MainActor
struct ScrollTool {
    let options: ScrollOptions

    /// The process's exit status.
    func run() async -> Int32 {
        guard let server = options.server else { return 2 }
        let images: [ListedImage]
        do {
            images = try await list(server)
        } catch {
            note("thumbd-scroll: listing \(server.absoluteString)/v1/images failed: \(error)", always: true)
            return 1
        }
        guard !images.isEmpty else {
            note("thumbd-scroll: \(server.absoluteString) lists no images", always: true)
            return 1
        }
        let layout = GridLayout(itemCount: images.count, columns: options.columns, cellPoints: options.cellPoints,
                                viewportPoints: options.viewportPoints)
        var results: [(kind: StrategyKind, figures: StrategyFigures)] = []
        for kind in options.strategies {
            note("\(kind.rawValue): scrolling \(images.count) images ...")
            let figures = await run(kind, images: images, server: server, layout: layout)
            note("\(kind.rawValue): \(figures.simulatedSeconds) s simulated, \(ResultTable.bytes(figures.bytesDownloaded)) in "
                + "\(figures.requests) requests, \(figures.wrongImages) wrong images")
            results.append((kind, figures))
        }
        if !options.jsonOnly {
            print(ResultTable(options: options, imageCount: images.count, results: results).render())
            print("")
        }
        print("RESULT " + Self.json(results))
        return 0
    }

    private func list(_ server: URL) async throws -> [ListedImage] {
        let listing = ThumbdListing(baseURL: server, pageSize: 100, transport: URLSessionTransport())
        var images: [ListedImage] = []
        for try await image in listing.images {
            images.append(image)
            if let limit = options.limit, images.count >= limit { break }
        }
        return images
    }

    /// One strategy from a cold start.
    private func run(_ kind: StrategyKind, images: [ListedImage], server: URL, layout: GridLayout) async -> StrategyFigures {
        let clock = SimulationClock(timeScale: options.timeScale)
        let ledger = TransferLedger()
        let settings = SharedLinkTransport.Settings(bytesPerSecond: options.bytesPerSecond, latency: options.latencyMs / 1000,
                                                    timeScale: options.timeScale)
        let link = SharedLinkTransport(wrapping: URLSessionTransport(), settings: settings,
                                       onTransferEnd: { [ledger] report in ledger.record(report) })
        let recorder = ScrollRecorder(clock: clock)
        let builder = ThumbdURLBuilder(baseURL: server)
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("thumbd-scroll-\(kind.rawValue)-\(UUID().uuidString)", isDirectory: true)
        let strategy: any LoadingStrategy
        switch kind {
        case .naive:
            strategy = NaiveStrategy(originals: images.map { builder.url(forTarget: $0.url) }, transport: link, recorder: recorder)
        case .kitOriginals, .kit:
            strategy = KitStrategy(kind: kind, images: images, builder: builder, layout: layout, options: options,
                                   transport: link, diskDirectory: folder, recorder: recorder)
        }
        let simulation = ScrollSimulation(layout: layout, script: ScrollScript.standard(layout: layout, options: options),
                                          strategy: strategy, recorder: recorder, ledger: ledger, link: link, clock: clock)
        let seconds = await simulation.run()
        // The stop's cancellations reach the link before the figures are taken.
        try? await Task.sleep(for: .milliseconds(300))
        let totals = link.totals
        let summary = ledger.summary()
        let figures = StrategyFigures(
            images: images.count,
            simulatedSeconds: (seconds * 10).rounded() / 10,
            bytesDownloaded: totals.bytes,
            requests: totals.requests,
            visibleToShown: StrategyFigures.Latency(seconds: recorder.latencies),
            cellAppearances: recorder.appearances,
            cellsFilled: recorder.latencies.count,
            neverFilledShare: Self.share(recorder.neverFilled, of: recorder.appearances),
            wrongImages: recorder.wrongImages,
            bytesScrolledAway: summary.bytesScrolledAway,
            bytesPrefetchedAhead: summary.bytesAhead,
            bytesPrefetchedNeverShown: summary.bytesAheadNeverShown,
            bytesSavedByResume: summary.bytesSavedByResume,
            resumes: summary.resumes,
            returnTrip: recorder.returnTrip,
            fullScreen: recorder.fullScreenViews.map { Self.figures(of: $0) },
            transfersCancelled: strategy.transfersCancelled,
            failures: strategy.failures)
        // Whatever still runs ends now, so nothing of this strategy overlaps the next one.
        link.disconnectAll()
        try? await Task.sleep(for: .milliseconds(100))
        strategy.finish()
        try? FileManager.default.removeItem(at: folder)
        return figures
    }

    private static func figures(of view: FullScreenView) -> StrategyFigures.FullScreenOpen {
        let shownAfter = view.shownAt.map { (($0 - view.openedAt) * 10_000).rounded() / 10 }
        return StrategyFigures.FullScreenOpen(item: view.item, attempt: view.attempt, shownAfterMs: shownAfter,
                                              outcome: view.outcome?.rawValue)
    }

    private static func share(_ part: Int, of whole: Int) -> Double {
        guard whole > 0 else { return 0 }
        return (Double(part) / Double(whole) * 10_000).rounded() / 10_000
    }

    /// `{"kit": {...}, "kit-originals": {...}, "naive": {...}}`, one line.
    private static func json(_ results: [(kind: StrategyKind, figures: StrategyFigures)]) -> String {
        var object: [String: StrategyFigures] = [:]
        for result in results { object[result.kind.rawValue] = result.figures }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(object) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Progress and errors go to standard error (progress not with `--json-only`).
    private func note(_ line: String, always: Bool = false) {
        guard always || !options.jsonOnly else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
