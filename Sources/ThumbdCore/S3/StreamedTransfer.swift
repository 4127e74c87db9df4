import Clocks
import CurlShim
import HTTP

/// One streamed GET's body on its way (`S3Client.stream`): held until the answer's first bytes
/// are there, then pushed to the stream the caller gives for it. libcurl calls `write` on the
/// transfer's own thread, so nothing here is shared.
final class StreamedTransfer {
    /// The most of a body held before it goes on: the prefix of a 200 or 206, or the whole of
    /// any other answer (an error's XML).
    static let maxHeldBytes = 1 << 20

    private let prefixLength: Int
    private let keeping: Int
    /// The longest 200 or 206 passed on: a longer one ends the transfer before it is answered.
    private let maxBytes: Int
    private let answered: (S3Response) -> S3Client.StreamTarget?
    /// The body so far, until it is answered.
    private(set) var prefix: [UInt8] = []
    private(set) var hasAnswered = false
    private(set) var stream: BodyStream?
    /// The transfer ended without error (set by its sender); unset until then.
    var succeeded = true
    /// Its pace cut it after its answer went on (set by its sender).
    var cut = false
    /// When the answer went on: the store's part of the request ends there.
    private(set) var answeredAt: Double?
    private let clock: any MonotonicClock
    /// The transfer's pace: its deadline moves on once the answer goes on, and waits on the
    /// client do not count against the store.
    private let watch: TransferWatch
    private var copy: [UInt8]?
    private var expected: Int64?
    /// The last bytes of a body being kept: they go on after it is kept (`finish`), so a client
    /// that has the whole original finds it kept.
    private var tail: [UInt8] = []

    init(prefixLength: Int, keeping: Int, maxBytes: Int, clock: any MonotonicClock, watch: TransferWatch,
         answered: @escaping (S3Response) -> S3Client.StreamTarget?) {
        self.clock = clock
        self.watch = watch
        self.prefixLength = min(prefixLength, Self.maxHeldBytes)
        self.maxBytes = maxBytes
        self.keeping = keeping
        self.answered = answered
    }

    /// The whole body, when it was kept and came whole.
    var kept: [UInt8]? {
        guard let copy, let expected, Int64(copy.count) == expected else { return nil }
        return copy
    }

    static let write: @convention(c) (UnsafePointer<UInt8>?, Int, UnsafePointer<tf_s3_response>?, UnsafeMutableRawPointer?) -> Int32 = {
        data, length, head, context in
        guard let context, let head else { return 0 }
        let transfer = Unmanaged<StreamedTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receive(UnsafeRawBufferPointer(start: data, count: length), head: head.pointee) ? 1 : 0
    }

    /// False ends the transfer.
    private func receive(_ bytes: UnsafeRawBufferPointer, head: tf_s3_response) -> Bool {
        if hasAnswered {
            guard let stream else { return false }
            if copy != nil {
                copy!.append(contentsOf: bytes)
                if Int64(copy!.count) == expected {
                    tail = Array(bytes.bindMemory(to: UInt8.self))
                    return !stream.isCancelled
                }
            }
            return watch.waitingOnClient { stream.push(bytes) }
        }
        let passedOn = head.status == 200 || head.status == 206
        if passedOn && head.content_length > maxBytes { return false }
        prefix.append(contentsOf: bytes)
        if passedOn && prefix.count >= prefixLength {
            answer(S3Response(head, body: prefix))
            return stream != nil
        }
        return prefix.count <= Self.maxHeldBytes
    }

    /// Hands the answer on, and what came of its body to the stream it gets.
    func answer(_ response: S3Response) {
        hasAnswered = true
        answeredAt = clock.now()
        watch.answered()
        let target = answered(response)
        stream = target?.stream
        defer { prefix = [] }
        guard let target else { return }
        let stream = target.stream
        if target.keepsWhole, response.status == 200, let length = response.contentLength, length <= keeping {
            expected = length
            copy = prefix
        }
        if Int64(prefix.count) == expected {
            tail = prefix
        } else {
            _ = watch.waitingOnClient { stream.push(prefix) }
        }
    }

    /// The transfer ended well: `whole` is given the body when it was kept, then the last bytes
    /// go on and the stream ends.
    func finish(whole: ([UInt8]) -> Void) {
        guard let stream else { return }
        if let kept { whole(kept) }
        if !tail.isEmpty { _ = watch.waitingOnClient { stream.push(tail) } }
        stream.finish()
    }
}
