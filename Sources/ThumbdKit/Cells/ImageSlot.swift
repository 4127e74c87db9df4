import Foundation

/// What a reusable cell owns to show one item's image: bind the item's URL when the cell is
/// configured, and `onDelivery` is called (on the main actor) with that item's image.
///
/// The classic bug of reused cells is an image for the item the cell showed before arriving
/// late and replacing the current one. A slot prevents it twice: binding cancels the previous
/// load (which also stops its transfer when no other cell wants it), and every delivery is
/// checked against a generation counter, so a result that arrives for an older binding is
/// dropped even if it beat the cancellation.
///
/// `checksDeliveries = false` turns both off (no cancellation, no check), reproducing the bug;
/// it exists for the test that proves the reuse test can catch it.
@MainActor
public final class ImageSlot<Image: Sendable> {
    public typealias Delivery = @MainActor (_ url: URL, _ result: Result<ImageResponse<Image>, any Error>) -> Void

    public let loader: ThumbdLoader<Image>
    /// The URL bound now (nil: nothing).
    public private(set) var url: URL?
    /// The reuse safety; leave it on.
    public var checksDeliveries: Bool
    public var priority: LoadPriority = .high
    /// Called with each result for the bound URL: a fresh memory hit at once, from `bind`;
    /// anything else when its load finishes. Not called for cancelled loads.
    public var onDelivery: Delivery?

    private var generation: UInt64 = 0
    /// Kept outside the main actor's isolation so `deinit` can cancel it.
    private let pending = PendingLoad()

    public init(loader: ThumbdLoader<Image>, checksDeliveries: Bool = true, onDelivery: Delivery? = nil) {
        self.loader = loader
        self.checksDeliveries = checksDeliveries
        self.onDelivery = onDelivery
    }

    deinit {
        pending.replace(with: nil, cancellingPrevious: true)
    }

    /// Shows `url` from now on (nil: nothing, as in `prepareForReuse`).
    public func bind(_ url: URL?) {
        generation &+= 1
        let bound = generation
        pending.replace(with: nil, cancellingPrevious: checksDeliveries)
        self.url = url
        guard let url else { return }
        if let hit = loader.cachedResponse(for: url) {
            onDelivery?(url, .success(hit))
            return
        }
        let loader = self.loader
        let priority = self.priority
        let task = Task { [weak self] in
            let result: Result<ImageResponse<Image>, any Error>
            do {
                result = .success(try await loader.load(url, priority: priority))
            } catch {
                result = .failure(error)
            }
            self?.deliver(result, for: url, generation: bound)
        }
        pending.replace(with: task, cancellingPrevious: false)
    }

    public func prepareForReuse() {
        bind(nil)
    }

    private func deliver(_ result: Result<ImageResponse<Image>, any Error>, for url: URL, generation bound: UInt64) {
        if checksDeliveries {
            // A late answer for an item this slot no longer holds.
            guard bound == generation else { return }
            if case .failure(let error) = result, error is CancellationError { return }
        }
        onDelivery?(url, result)
    }
}
