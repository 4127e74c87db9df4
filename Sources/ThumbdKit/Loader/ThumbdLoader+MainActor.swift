import Foundation

/// Callback conveniences for UIKit-style code: the load runs as usual (decode off the main
/// actor) and the completion is called on the main actor.
extension ThumbdLoader {
    /// Loads `url` and calls `completion` on the main actor (not for a cancelled load). Cancel
    /// the returned task to stop it.
    @MainActor @discardableResult
    public func load(_ url: URL, priority: LoadPriority = .normal,
                     completion: @escaping @MainActor (Result<ImageResponse<Image>, any Error>) -> Void) -> Task<Void, Never> {
        Task { @MainActor in
            let result: Result<ImageResponse<Image>, any Error>
            do {
                result = .success(try await self.load(url, priority: priority))
            } catch is CancellationError {
                return
            } catch {
                result = .failure(error)
            }
            completion(result)
        }
    }

    /// Loads `url` and returns the image on the main actor.
    @MainActor
    public func image(for url: URL, priority: LoadPriority = .normal) async throws -> Image {
        try await load(url, priority: priority).image
    }
}
