import Foundation

/// A body whose bytes arrive while it is sent (an original passed on from a store as the store
/// sends it). One producer thread pushes; it waits while `capacity` bytes wait to be sent, so a
/// body's memory is bounded whatever its length. The connection takes the bytes on its event
/// loop and, when none wait, leaves a waker the next push calls.
///
/// The response holds the stream's `Reader`. When the reader goes (the body was sent, the client
/// went away, a HEAD needed no body), the producer's next push answers false: it stops.
public final class BodyStream: @unchecked Sendable {
    /// What the connection finds when it asks for more.
    public enum Next {
        /// Bytes to send, in order.
        case bytes([[UInt8]])
        /// None yet; the waker will be called when there are.
        case waiting
        /// Every byte was pushed and taken.
        case finished
        /// The producer could not deliver every byte.
        case failed
    }

    /// The response's hold on the stream: its going away tells the producer nobody reads.
    public final class Reader: @unchecked Sendable {
        public let stream: BodyStream

        fileprivate init(_ stream: BodyStream) { self.stream = stream }

        deinit { stream.cancel() }

        /// The bytes waiting, or `waiting` after leaving `waker` to be called (once, from the
        /// producer's thread) when that changes.
        public func next(waker: @escaping @Sendable () -> Void) -> Next { stream.next(waker: waker) }
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var chunks: [[UInt8]] = []
    private var buffered = 0
    private var finished = false
    private var failed = false
    private var cancelled = false
    private var waker: (@Sendable () -> Void)?
    private var readerMade = false
    private var producerWaits = false

    /// Bytes that may wait to be sent before the producer waits.
    public let capacity: Int
    /// The room a new chunk is made with, so that the small pushes after it fill it.
    static let chunkBytes = 64 << 10
    /// How long one push waits for room before the producer gives up: a safety net for a reader
    /// nobody drains. (A client that reads nothing is closed by its connection's write timer,
    /// which drops the reader; the connection takes more only once it has written what it took,
    /// so this must allow a slow client the time to read a whole `capacity`.)
    public let patience: Double

    public init(capacity: Int = 1 << 20, patience: Double) {
        self.capacity = capacity
        self.patience = patience
    }

    /// The one reader, for the response's body.
    public func makeReader() -> Reader {
        condition.lock()
        precondition(!readerMade, "a body stream has one reader")
        readerMade = true
        condition.unlock()
        return Reader(self)
    }

    // MARK: - The producer

    /// Queues a copy of `bytes`, after waiting for room. False when nobody will take them (the
    /// reader went, or took nothing for `patience` seconds): the producer stops.
    public func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return true }
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: patience)
        while !cancelled && buffered > 0 && buffered + bytes.count > capacity {
            producerWaits = true
            defer { producerWaits = false }
            if !condition.wait(until: deadline) { break }
        }
        guard !cancelled && (buffered == 0 || buffered + bytes.count <= capacity) else {
            // Nobody took anything for `patience`: the body ends here, and the connection,
            // woken, closes once it has sent what came.
            cancelled = true
            failed = true
            let wake = waker
            waker = nil
            condition.unlock()
            wake?()
            return false
        }
        // Small pushes (libcurl hands over 16 KiB at a time) fill one chunk: fewer allocations,
        // and fewer pieces for the connection to send.
        let pushed = bytes.bindMemory(to: UInt8.self)
        if let last = chunks.indices.last, chunks[last].capacity - chunks[last].count >= pushed.count {
            chunks[last].append(contentsOf: pushed)
        } else {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(max(pushed.count, Self.chunkBytes))
            chunk.append(contentsOf: pushed)
            chunks.append(chunk)
        }
        buffered += bytes.count
        let wake = waker
        waker = nil
        condition.unlock()
        wake?()
        return true
    }

    public func push(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { push($0) } }

    /// Every byte was pushed.
    public func finish() { end(failing: false) }

    /// The rest of the bytes will not come: the connection closes once it sent what came.
    public func fail() { end(failing: true) }

    /// True while a push waits for room (for tests that check the producer is held back).
    package var isProducerWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return producerWaits
    }

    /// True once the reader went: pushing more is of no use.
    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    private func end(failing: Bool) {
        condition.lock()
        if failing { failed = true } else { finished = true }
        let wake = waker
        waker = nil
        condition.unlock()
        wake?()
    }

    // MARK: - The reader

    fileprivate func next(waker: @escaping @Sendable () -> Void) -> Next {
        condition.lock()
        defer { condition.unlock() }
        if !chunks.isEmpty {
            let taken = chunks
            chunks.removeAll(keepingCapacity: true)
            buffered = 0
            condition.signal()
            return .bytes(taken)
        }
        if failed { return .failed }
        if finished { return .finished }
        self.waker = waker
        return .waiting
    }

    fileprivate func cancel() {
        condition.lock()
        cancelled = true
        waker = nil
        condition.signal()
        condition.unlock()
    }
}
