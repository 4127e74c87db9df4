import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import WireCoding

/// One HTTP transfer as the loader sees it: collects the body as chunks arrive, checks a 206
/// against the partial it resumes, and can be stopped at any moment with what it had so far
/// kept for the next attempt.
final class NetworkTransfer: Sendable {
    enum Outcome: Sendable {
        case finished(Result)
        /// The server answered a resume with a range that does not fit (other start, other
        /// length, 416): drop the partial and ask for the whole body.
        case restart
    }

    struct Result: Sendable {
        var response: TransportResponse
        /// The complete body (for a resume: the kept bytes plus the rest).
        var body: Data
        /// The length the body must have, when the response says it.
        var expectedLength: Int?
        /// Where the appended range started, when this was a successful resume.
        var resumedFrom: Int?
        /// Body bytes that came over the network in this transfer.
        var bytesReceived: Int
    }

    typealias Continuation = CheckedContinuation<Outcome, any Error>

    /// What changes as the transfer runs, all behind one lock.
    fileprivate struct State {
        var continuation: Continuation?
        var task: (any TransportTask)?
        var response: TransportResponse?
        var body = Data()
        var expectedLength: Int?
        var resumed = false
        var bytesReceived = 0
        /// Set once the outcome is decided (or the transfer stopped): later events are ignored.
        var ended = false
        var partialTaken = false
    }

    private let partial: PartialDownload?
    private let onBytes: @Sendable (Int) -> Void
    private let state = Locked(State())

    /// `partial`: the bytes to resume from (a `Range` request is then expected to be sent);
    /// `onBytes` is told of each chunk's size as it arrives.
    init(resumingFrom partial: PartialDownload?, onBytes: @escaping @Sendable (Int) -> Void) {
        self.partial = partial
        self.onBytes = onBytes
    }

    func run(on transport: any ThumbdTransport, request: URLRequest, priority: Float) async throws -> Outcome {
        try await withCheckedThrowingContinuation { (continuation: Continuation) in
            let stoppedEarly = state.withLock { state -> Bool in
                if state.ended { return true }
                state.continuation = continuation
                return false
            }
            if stoppedEarly {
                continuation.resume(throwing: CancellationError())
                return
            }
            let task = transport.start(request, priority: priority) { [self] event in receive(event) }
            let cancelNow = state.withLock { state -> Bool in
                state.task = task
                return state.ended
            }
            // Ended while starting (stopped, or refused at the head): make sure the transport
            // lets go too. Cancelling a finished task is harmless.
            if cancelNow { task.cancel() }
        }
    }

    /// Stops the transfer now: the transport is cancelled and the waiting `run` throws
    /// `CancellationError`. With a key, what arrived so far is returned for a resume, taken
    /// under the same lock that ends the transfer, so no later chunk and no other caller can
    /// interleave.
    @discardableResult
    func stop(keepingPartialFor key: String? = nil) -> PartialDownload? {
        let partial = self.partial
        let (kept, continuation, task) = state.withLock { state -> (PartialDownload?, Continuation?, (any TransportTask)?) in
            guard !state.ended else { return (nil, nil, nil) }
            state.ended = true
            let kept = key.flatMap { state.takePartial(key: $0, resumingFrom: partial) }
            defer { state.continuation = nil }
            return (kept, state.continuation, state.task)
        }
        task?.cancel()
        continuation?.resume(throwing: CancellationError())
        return kept
    }

    func setPriority(_ priority: Float) {
        let task = state.withLock { state -> (any TransportTask)? in state.ended ? nil : state.task }
        task?.setPriority(priority)
    }

    /// What a later request can resume from, once: the body so far, when the response was a
    /// complete representation (200, or a resume that fit) with a strong validator and a known
    /// length, and was allowed to be stored.
    func takePartial(key: String) -> PartialDownload? {
        let partial = self.partial
        return state.withLock { $0.takePartial(key: key, resumingFrom: partial) }
    }

    /// A strong ETag as written (`"abc"`), nil for weak ones (`W/"abc"`).
    static func strongETag(_ field: String) -> String? {
        let value = field.trimmingCharacters(in: .whitespaces)
        return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? value : nil
    }

    // MARK: - Events

    private func receive(_ event: TransportEvent) {
        let partial = self.partial
        let (decided, cancelTask, chunk) = state.withLock { state -> (Decision?, (any TransportTask)?, Int) in
            guard !state.ended else { return (nil, nil, 0) }
            switch event {
            case .response(let head):
                state.response = head
                guard case .refuse(let outcome) = state.classify(head, resumingFrom: partial) else { return (nil, nil, 0) }
                state.ended = true
                defer { state.continuation = nil }
                return (state.continuation.map { Decision(continuation: $0, result: outcome) }, state.task, 0)
            case .data(let data):
                state.body.append(data)
                state.bytesReceived += data.count
                return (nil, nil, data.count)
            case .finished(let error):
                state.ended = true
                defer { state.continuation = nil }
                guard let continuation = state.continuation else { return (nil, nil, 0) }
                if let error { return (Decision(continuation: continuation, result: .failure(error)), nil, 0) }
                guard let response = state.response else {
                    return (Decision(continuation: continuation, result: .failure(ThumbdLoadError.invalidResponse("no response head"))), nil, 0)
                }
                let result = Result(response: response, body: state.body, expectedLength: state.expectedLength,
                                    resumedFrom: state.resumed ? partial?.data.count : nil, bytesReceived: state.bytesReceived)
                return (Decision(continuation: continuation, result: .success(.finished(result))), nil, 0)
            }
        }
        if chunk > 0 { onBytes(chunk) }
        cancelTask?.cancel()
        if let decided { decided.continuation.resume(with: decided.result) }
    }

    /// The outcome decided by an event, resumed once the lock is released.
    private struct Decision {
        let continuation: Continuation
        let result: Swift.Result<Outcome, any Error>
    }
}

extension NetworkTransfer.State {
    /// What `takePartial(key:)` and `stop(keepingPartialFor:)` hand back, with the lock held.
    mutating func takePartial(key: String, resumingFrom partial: PartialDownload?) -> PartialDownload? {
        guard !partialTaken, let response, let expectedLength else { return nil }
        partialTaken = true
        guard response.statusCode == 200 || resumed, body.count > 0, body.count < expectedLength else { return nil }
        guard !CacheControl(response.header("Cache-Control")).noStore else { return nil }
        let responseETag = response.header("ETag").flatMap(NetworkTransfer.strongETag)
        let etag = responseETag ?? (resumed ? partial?.info.etag : nil)
        let lastModified = response.header("Last-Modified") ?? (resumed ? partial?.info.lastModified : nil)
        guard etag != nil || lastModified != nil else { return nil }
        return PartialDownload(key: key, info: .init(etag: etag, lastModified: lastModified, completeLength: expectedLength), data: body)
    }

    enum Classification {
        case keep
        case refuse(Swift.Result<NetworkTransfer.Outcome, any Error>)
    }

    /// Decides what a response head means for this transfer.
    mutating func classify(_ head: TransportResponse, resumingFrom partial: PartialDownload?) -> Classification {
        guard let partial else {
            if head.statusCode == 206 { return .refuse(.failure(ThumbdLoadError.invalidResponse("206 to a request without Range"))) }
            expectedLength = head.statusCode == 200 ? head.contentLength : nil
            if let expectedLength, expectedLength > 0 { body.reserveCapacity(expectedLength) }
            return .keep
        }
        switch head.statusCode {
        case 206:
            // Append only the exact continuation of the same representation.
            guard let range = head.header("Content-Range").flatMap(ContentRange.init(parsing:)),
                  range.first == partial.data.count,
                  range.completeLength == partial.info.completeLength,
                  range.last == partial.info.completeLength - 1
            else { return .refuse(.success(.restart)) }
            if let etag = head.header("ETag"), let kept = partial.info.etag, etag != kept { return .refuse(.success(.restart)) }
            resumed = true
            body = partial.data
            body.reserveCapacity(partial.info.completeLength)
            expectedLength = partial.info.completeLength
        case 416:
            return .refuse(.success(.restart))
        case 200:
            // If-Range did not hold (the representation changed): a fresh, whole body.
            body = Data()
            expectedLength = head.contentLength
        default:
            expectedLength = nil
        }
        return .keep
    }
}
