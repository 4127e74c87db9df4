import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP transfer as the loader sees it: collects the body as chunks arrive, checks a 206
/// against the partial it resumes, and can be stopped at any moment with what it had so far
/// kept for the next attempt.
final class NetworkTransfer: @unchecked Sendable {
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

    private let lock = NSLock()
    private let partial: PartialDownload?
    private let onBytes: @Sendable (Int) -> Void
    private var continuation: CheckedContinuation<Outcome, any Error>?
    private var task: (any TransportTask)?
    private var response: TransportResponse?
    private var body = Data()
    private var expectedLength: Int?
    private var resumed = false
    private var bytesReceived = 0
    /// Set once the outcome is decided (or the transfer stopped): later events are ignored.
    private var ended = false
    private var partialTaken = false

    /// `partial`: the bytes to resume from (a `Range` request is then expected to be sent);
    /// `onBytes` is told of each chunk's size as it arrives.
    init(resumingFrom partial: PartialDownload?, onBytes: @escaping @Sendable (Int) -> Void) {
        self.partial = partial
        self.onBytes = onBytes
    }

    func run(on transport: any ThumbdTransport, request: URLRequest, priority: Float) async throws -> Outcome {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
            let stoppedEarly = lock.criticalSection { () -> Bool in
                if ended { return true }
                self.continuation = continuation
                return false
            }
            if stoppedEarly {
                continuation.resume(throwing: CancellationError())
                return
            }
            let task = transport.start(request, priority: priority) { [self] event in receive(event) }
            let cancelNow = lock.criticalSection { () -> Bool in
                self.task = task
                return ended
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
        lock.lock()
        var partial: PartialDownload?
        var continuation: CheckedContinuation<Outcome, any Error>?
        var task: (any TransportTask)?
        if !ended {
            ended = true
            if let key { partial = partialLocked(key: key) }
            continuation = self.continuation
            task = self.task
            self.continuation = nil
        }
        lock.unlock()
        task?.cancel()
        continuation?.resume(throwing: CancellationError())
        return partial
    }

    func setPriority(_ priority: Float) {
        let task = lock.criticalSection { () -> (any TransportTask)? in ended ? nil : self.task }
        task?.setPriority(priority)
    }

    /// What a later request can resume from, once: the body so far, when the response was a
    /// complete representation (200, or a resume that fit) with a strong validator and a known
    /// length, and was allowed to be stored.
    func takePartial(key: String) -> PartialDownload? {
        lock.criticalSection { partialLocked(key: key) }
    }

    /// Called with the lock held.
    private func partialLocked(key: String) -> PartialDownload? {
        guard !partialTaken, let response, let expectedLength else { return nil }
        partialTaken = true
        guard response.statusCode == 200 || resumed, body.count > 0, body.count < expectedLength else { return nil }
        guard !CacheControl(response.header("Cache-Control")).noStore else { return nil }
        let responseETag = response.header("ETag").flatMap(Self.strongETag)
        let etag = responseETag ?? (resumed ? partial?.info.etag : nil)
        let lastModified = response.header("Last-Modified") ?? (resumed ? partial?.info.lastModified : nil)
        guard etag != nil || lastModified != nil else { return nil }
        return PartialDownload(key: key, info: .init(etag: etag, lastModified: lastModified, completeLength: expectedLength), data: body)
    }

    /// A strong ETag as written (`"abc"`), nil for weak ones (`W/"abc"`).
    static func strongETag(_ field: String) -> String? {
        let value = field.trimmingCharacters(in: .whitespaces)
        return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? value : nil
    }

    // MARK: - Events

    private func receive(_ event: TransportEvent) {
        var decided: (CheckedContinuation<Outcome, any Error>, Swift.Result<Outcome, any Error>)?
        var cancelTask: (any TransportTask)?
        var chunk = 0
        lock.lock()
        if !ended {
            switch event {
            case .response(let head):
                response = head
                switch classify(head) {
                case .keep:
                    break
                case .refuse(let outcome):
                    ended = true
                    cancelTask = task
                    if let continuation { decided = (continuation, outcome) }
                    continuation = nil
                }
            case .data(let data):
                body.append(data)
                bytesReceived += data.count
                chunk = data.count
            case .finished(let error):
                ended = true
                if let continuation {
                    if let error {
                        decided = (continuation, .failure(error))
                    } else if let response {
                        let result = Result(response: response, body: body, expectedLength: expectedLength,
                                            resumedFrom: resumed ? partial?.data.count : nil, bytesReceived: bytesReceived)
                        decided = (continuation, .success(.finished(result)))
                    } else {
                        decided = (continuation, .failure(ThumbdLoadError.invalidResponse("no response head")))
                    }
                }
                continuation = nil
            }
        }
        lock.unlock()
        if chunk > 0 { onBytes(chunk) }
        cancelTask?.cancel()
        if let decided { decided.0.resume(with: decided.1) }
    }

    private enum Classification {
        case keep
        case refuse(Swift.Result<Outcome, any Error>)
    }

    /// Decides what a response head means for this transfer. Called under the lock.
    private func classify(_ head: TransportResponse) -> Classification {
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
