import Foundation
import ThumbdKit
import ThumbdProtocol

/// The grid as ThumbdKit means it to be written: a fresh `ThumbdLoader` with its memory and disk
/// tiers, an `ImageSlot` per cell (bound when the cell appears, unbound when it leaves, which
/// cancels its load and keeps the bytes for a resume), and the next screen prefetched in the
/// scroll direction. `kit-originals` fetches the originals; `kit` fetches thumbnails at the
/// cell's pixel size, and a screen-sized one for the full-screen view.
@MainActor
final class KitStrategy: LoadingStrategy {
    let loader: ThumbdLoader<SimulatedImage>
    private let recorder: ScrollRecorder
    private let cellURLs: [URL]
    private let fullScreenURLs: [URL]
    private let itemsByURL: [URL: Int]
    /// The URLs this strategy asked the loader to prefetch and has not cancelled.
    private var prefetching: Set<URL> = []

    init(kind: StrategyKind, images: [ListedImage], builder: ThumbdURLBuilder, layout: GridLayout, options: ScrollOptions,
         transport: any ThumbdTransport, diskDirectory: URL, recorder: ScrollRecorder) {
        self.recorder = recorder
        let cells: [URL]
        let screens: [URL]
        if kind.fetchesOriginals {
            cells = images.map { builder.url(forTarget: $0.url) }
            screens = cells
        } else {
            // w = h = the cell's side in pixels, cropped to fill it; the full-screen view gets
            // the screen's pixels, whole. fm=auto: WebP, as the loader's Accept names it.
            let cellPixels = Int((options.cellPoints * options.scale).rounded())
            let cell = ThumbnailOptions(width: cellPixels, height: cellPixels, fit: .cover, format: .auto)
            let screen = ThumbnailOptions(width: Int((layout.widthPoints * options.scale).rounded()),
                                          height: Int((options.viewportPoints * options.scale).rounded()),
                                          fit: .contain, format: .auto)
            cells = images.map { builder.imageURL($0.id, options: cell) }
            screens = images.map { builder.imageURL($0.id, options: screen) }
        }
        var items: [URL: Int] = [:]
        for (item, url) in cells.enumerated() { items[url] = item }
        for (item, url) in screens.enumerated() { items[url] = item }
        cellURLs = cells
        fullScreenURLs = screens
        itemsByURL = items
        // The memory tier weighs decoded bitmaps (64 MiB, the default), as an app's would.
        loader = ThumbdLoader<SimulatedImage>(configuration: ThumbdLoaderConfiguration(diskDirectory: diskDirectory),
                                              transport: transport,
                                              decode: SimulatedImage.decode,
                                              cost: { image, _ in image.decodedBytes })
    }

    func cellURL(for item: Int) -> URL { cellURLs[item] }
    func fullScreenURL(for item: Int) -> URL { fullScreenURLs[item] }

    func prepare(_ cell: GridCell) {
        let slot = ImageSlot<SimulatedImage>(loader: loader)
        slot.onDelivery = { [weak self, weak cell] url, result in
            guard let self, let cell else { return }
            self.delivered(url, result, to: cell)
        }
        cell.slot = slot
    }

    func willDisplay(_ cell: GridCell, item: Int) {
        // A fresh memory hit is delivered from inside `bind`, before it returns.
        cell.slot?.bind(cellURLs[item])
    }

    func didEndDisplaying(_ cell: GridCell) {
        guard let url = cell.slot?.url else { return }
        cell.slot?.bind(nil)
        // A prefetch the visible load joined would otherwise keep the transfer going.
        loader.cancelPrefetching([url])
        prefetching.remove(url)
    }

    func visibleItemsChanged(visible: Range<Int>, ahead: [Int]) {
        let window = ahead.map { cellURLs[$0] }
        let windowSet = Set(window)
        let visibleURLs = Set(visible.map { cellURLs[$0] })
        // Out of the window and not on screen: no longer wanted. (One that came on screen is
        // left running: its cell's load has joined it.)
        let dropped = prefetching.subtracting(windowSet).subtracting(visibleURLs)
        if !dropped.isEmpty { loader.cancelPrefetching(Array(dropped)) }
        let fresh = window.filter { !prefetching.contains($0) }
        if !fresh.isEmpty { loader.prefetch(fresh) }
        prefetching = windowSet
    }

    func open(_ view: FullScreenView) {
        let slot = ImageSlot<SimulatedImage>(loader: loader)
        slot.onDelivery = { [weak self, weak view] _, result in
            guard let self, let view else { return }
            switch result {
            case .success(let response): self.recorder.fullScreenReceived(view, outcome: response.outcome)
            case .failure: break  // counted in the loader's failures
            }
        }
        view.slot = slot
        slot.bind(view.url)
    }

    func close(_ view: FullScreenView) {
        view.slot?.bind(nil)
        view.slot = nil
    }

    func stop(cells: [GridCell]) {
        loader.cancelAllPrefetching()
        prefetching.removeAll()
        for cell in cells { cell.slot?.bind(nil) }
    }

    func finish() {
        loader.waitForDiskWrites()
    }

    var transfersCancelled: Int { loader.counters.transfersCancelled }
    var failures: Int { loader.counters.failures }

    private func delivered(_ url: URL, _ result: Result<ImageResponse<SimulatedImage>, any Error>, to cell: GridCell) {
        // The item is taken from the URL delivered, not from the cell, so a late image for the
        // cell's previous item would be caught as a wrong one.
        guard case .success(let response) = result, let item = itemsByURL[url] else { return }
        recorder.cellReceived(cell, item: item, outcome: response.outcome)
    }
}
