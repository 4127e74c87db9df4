import Foundation

/// The table printed for people: one row per figure, one column per strategy.
struct ResultTable {
    let options: ScrollOptions
    let imageCount: Int
    let results: [(kind: StrategyKind, figures: StrategyFigures)]

    private static let labelWidth = 36
    private static let columnWidth = 17

    func render() -> String {
        let cellPixels = Int((options.cellPoints * options.scale).rounded())
        let grid = "\(imageCount) images, \(options.columns) columns of \(Self.number(options.cellPoints)) pt at \(Self.number(options.scale))x"
        let screen = "(\(cellPixels) px cells), viewport \(Self.number(options.viewportPoints)) pt"
        let link = "\(Self.number(options.bandwidthMbit)) Mbit/s shared by all transfers, \(Self.number(options.latencyMs)) ms before each request"
        var lines: [String] = []
        lines.append("thumbd-scroll: \(grid) \(screen)")
        lines.append("link: \(link); time scale \(Self.number(options.timeScale))")
        lines.append("script: \(ScrollScript.describe(options))")
        lines.append("")
        let header = results.map { Self.pad($0.kind.rawValue, Self.columnWidth, right: true) }
        lines.append(Self.pad("", Self.labelWidth) + header.joined())
        for (label, value) in Self.rows {
            let values = results.map { Self.pad(value($0.figures), Self.columnWidth, right: true) }
            lines.append(Self.pad(label, Self.labelWidth) + values.joined())
        }
        lines += [
            "",
            "visible -> shown: simulated time from a cell coming on screen to its own image, over the cells filled while",
            "  on screen; the cells that never were are the share below it. Bytes are bodies that crossed the modelled link.",
            "Strategies run in this order, each cold (fresh loader and disk folder), against one server: originals come",
            "  from its library either way, but kit's thumbnails are made on this first visit; run again and they come",
            "  from the server's cache, so kit gets faster.",
        ]
        return lines.joined(separator: "\n")
    }

    private static var rows: [(label: String, value: (StrategyFigures) -> String)] {
        // One statement per row: quick to type-check.
        var rows: [(label: String, value: (StrategyFigures) -> String)] = []
        func add(_ label: String, _ value: @escaping (StrategyFigures) -> String) {
            rows.append((label, value))
        }
        add("downloaded") { Self.bytes($0.bytesDownloaded) }
        add("requests") { String($0.requests) }
        add("visible -> shown p50") { Self.seconds($0.visibleToShown.p50Ms) }
        add("visible -> shown p95") { Self.seconds($0.visibleToShown.p95Ms) }
        add("visible -> shown p99") { Self.seconds($0.visibleToShown.p99Ms) }
        add("cells filled / came on screen") { "\($0.cellsFilled) / \($0.cellAppearances)" }
        add("never filled while on screen") { String(format: "%.1f %%", $0.neverFilledShare * 100) }
        add("wrong images shown") { String($0.wrongImages) }
        add("bytes for cells scrolled away") { Self.bytes($0.bytesScrolledAway) }
        add("bytes prefetched ahead") { Self.bytes($0.bytesPrefetchedAhead) }
        add("  of which never shown") { Self.bytes($0.bytesPrefetchedNeverShown) }
        add("bytes saved by resume") { Self.bytes($0.bytesSavedByResume) }
        add("resumes") { String($0.resumes) }
        add("return trip: memory hits") { String($0.returnTrip.memory) }
        add("return trip: disk hits") { String($0.returnTrip.disk) }
        add("return trip: revalidated") { String($0.returnTrip.revalidated) }
        add("return trip: resumed / network") { "\($0.returnTrip.resumed) / \($0.returnTrip.network)" }
        add("full screen: shown before closed") { figures in
            let first = figures.fullScreen.filter { $0.attempt == 1 }
            let shown = first.filter { $0.shownAfterMs != nil }.count
            return "\(shown) of \(first.count)"
        }
        add("full screen: reopened -> shown (s)") { figures in
            let reopened = figures.fullScreen.filter { $0.attempt == 2 }
            let times: [String] = reopened.map { open in
                guard let milliseconds = open.shownAfterMs else { return "never" }
                return String(format: "%.2f", milliseconds / 1000)
            }
            return times.joined(separator: " ")
        }
        add("transfers cancelled") { String($0.transfersCancelled) }
        add("failures") { String($0.failures) }
        add("simulated seconds") { String(format: "%.1f", $0.simulatedSeconds) }
        return rows
    }

    static func bytes(_ count: Int) -> String {
        let value = Double(count)
        switch count {
        case ..<1000: return "\(count) B"
        case ..<1_000_000: return String(format: "%.1f kB", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.2f GB", value / 1e9)
        }
    }

    static func seconds(_ milliseconds: Double?) -> String {
        guard let milliseconds else { return "-" }
        return String(format: "%.2f s", milliseconds / 1000)
    }

    /// `3`, `2.5`: no trailing `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let gap = String(repeating: " ", count: max(1, width - text.count))
        return right ? gap + text : text + gap
    }
}
