import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ThumbdTransport {
    /// The whole response at once, for small bodies such as listing pages. Cancelling the
    /// calling task cancels the transfer.
    public func response(for request: URLRequest, priority: Float = 0.5) async throws -> (TransportResponse, Data) {
        let transfer = NetworkTransfer(resumingFrom: nil, onBytes: { _ in })
        let outcome = try await withTaskCancellationHandler {
            try await transfer.run(on: self, request: request, priority: priority)
        } onCancel: {
            transfer.stop()
        }
        switch outcome {
        case .finished(let result): return (result.response, result.body)
        case .restart: throw ThumbdLoadError.invalidResponse("unexpected partial content")
        }
    }
}
