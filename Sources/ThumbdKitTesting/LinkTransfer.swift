import Foundation
import ThumbdKit

/// One transfer on the shared link: the events the wrapped transport produced that have not
/// crossed the link yet, and how many body bytes have. A value in the link's state, so the
/// link's lock guards it with the rest; the link forgets it when the client cancels or its
/// end has been delivered.
struct LinkTransfer: Sendable {
    private enum Waiting {
        case head(TransportResponse)
        case data(Data)
        case finish((any Error)?)
    }

    let id: UInt64
    let url: URL
    let rangeStart: Int?
    let events: @Sendable (TransportEvent) -> Void

    var priority: Float
    var innerTask: (any TransportTask)?
    /// The link dropped it (`disconnectAll`): a failure is delivered instead of the rest.
    var hungUp = false
    /// The wrapped transport has sent its end.
    private(set) var innerFinished = false
    private(set) var statusCode: Int?
    private(set) var expectedLength: Int?
    /// Body bytes handed to the client so far.
    private(set) var delivered = 0
    /// Its end has been taken for delivery: nothing more crosses the link.
    private(set) var fullyTaken = false

    private var waiting: [Waiting] = []
    private var front = 0
    /// Bytes of `waiting[front]` (a `.data`) already taken.
    private var frontOffset = 0

    init(id: UInt64, url: URL, rangeStart: Int?, priority: Float, events: @escaping @Sendable (TransportEvent) -> Void) {
        self.id = id
        self.url = url
        self.rangeStart = rangeStart
        self.priority = priority
        self.events = events
    }

    /// Still crossing the link: neither dropped nor wholly carried.
    var isOnLink: Bool { !hungUp && !fullyTaken }

    /// An event from the wrapped transport, to cross the link in its turn.
    mutating func enqueue(_ event: TransportEvent) {
        switch event {
        case .response(let head):
            statusCode = head.statusCode
            expectedLength = head.contentLength
            waiting.append(.head(head))
        case .data(let data):
            if !data.isEmpty { waiting.append(.data(data)) }
        case .finished(let error):
            innerFinished = true
            waiting.append(.finish(error))
        }
    }

    /// Whether body bytes wait at the front (a head or an end in front goes first, for free).
    var wantsBytes: Bool {
        guard front < waiting.count, case .data = waiting[front] else { return false }
        return true
    }

    /// The heads and ends at the front, which take no bandwidth.
    mutating func takeControlEvents(into out: inout [(UInt64, TransportEvent)]) {
        while front < waiting.count {
            switch waiting[front] {
            case .head(let head):
                out.append((id, .response(head)))
            case .finish(let error):
                out.append((id, .finished(error)))
                fullyTaken = true
            case .data:
                return
            }
            advance()
        }
    }

    /// Up to `limit` body bytes from the front, in order.
    mutating func takeBytes(upTo limit: Int) -> Data {
        var taken = Data()
        while taken.count < limit, front < waiting.count, case .data(let chunk) = waiting[front] {
            let start = chunk.startIndex + frontOffset
            let end = min(chunk.endIndex, start + (limit - taken.count))
            taken.append(chunk[start..<end])
            frontOffset += end - start
            if end == chunk.endIndex { advance() }
        }
        delivered += taken.count
        return taken
    }

    func report(completed: Bool) -> LinkTransferReport {
        LinkTransferReport(url: url, bytes: delivered, statusCode: statusCode, rangeStart: rangeStart, completed: completed)
    }

    private mutating func advance() {
        front += 1
        frontOffset = 0
        if front == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            front = 0
        }
    }
}
