import Dispatch
import HTTP
import Synchronization
import Testing
import TestSupport

/// The bounded hand-over between a producer thread and the connection that sends a streamed body.
@Suite struct BodyStreamTests {
    private func taken(_ next: BodyStream.Next) -> [UInt8]? {
        if case .bytes(let chunks) = next { return chunks.flatMap { $0 } }
        return nil
    }

    @Test func bytesAreTakenInTheOrderPushedAndThenTheEnd() {
        let stream = BodyStream(capacity: 100, patience: 60)
        let reader = stream.makeReader()
        #expect(stream.push([1, 2, 3]) && stream.push([4]))
        #expect(taken(reader.next(waker: {})) == [1, 2, 3, 4])
        stream.finish()
        #expect({ if case .finished = reader.next(waker: {}) { true } else { false } }())
    }

    /// Small pushes fill one chunk (fewer allocations and pieces to send); a push larger than
    /// a chunk's room is a chunk of its own.
    @Test func smallPushesAreGatheredIntoChunks() {
        let stream = BodyStream(capacity: 1 << 20, patience: 60)
        let reader = stream.makeReader()
        let pieces = (0..<4).map { [UInt8](repeating: UInt8($0), count: 16 << 10) }
        for piece in pieces { #expect(stream.push(piece)) }
        #expect(stream.push([UInt8](repeating: 9, count: 100 << 10)))
        guard case .bytes(let chunks) = reader.next(waker: {}) else { Issue.record("no bytes"); return }
        #expect(chunks.count == 2)
        #expect(chunks.flatMap { $0 } == pieces.flatMap { $0 } + [UInt8](repeating: 9, count: 100 << 10))
    }

    @Test func aReaderWithNothingToTakeIsWokenByThePushThatBringsSome() {
        let stream = BodyStream(capacity: 100, patience: 60)
        let reader = stream.makeReader()
        let woken = Atomic<Int>(0)
        #expect({ if case .waiting = reader.next(waker: { woken.add(1, ordering: .relaxed) }) { true } else { false } }())
        #expect(stream.push([9]))
        let wokenOnce = woken.load(ordering: .relaxed)
        #expect(wokenOnce == 1)
        #expect(taken(reader.next(waker: {})) == [9])
        // A failure wakes it too, and is what it finds after the bytes that came.
        _ = reader.next(waker: { woken.add(1, ordering: .relaxed) })
        stream.fail()
        let wokenTwice = woken.load(ordering: .relaxed)
        #expect(wokenTwice == 2)
        #expect({ if case .failed = reader.next(waker: {}) { true } else { false } }())
    }

    /// Memory is bounded: a push that would pass the capacity waits until the reader takes what
    /// waits (it is seen waiting first), so the reader never finds more than the capacity at once.
    @Test func aFullStreamTakesNoMoreUntilItIsEmptied() async {
        let stream = BodyStream(capacity: 10, patience: 60)
        let reader = stream.makeReader()
        #expect(stream.push([UInt8](repeating: 1, count: 8)))
        let second = DispatchSemaphore(value: 0)
        let admitted = Atomic<Bool>(false)
        DispatchQueue.global().async {
            admitted.store(stream.push([UInt8](repeating: 2, count: 8)), ordering: .relaxed)
            second.signal()
        }
        #expect(eventually { stream.isProducerWaiting }, "the second push waits for room")
        #expect(taken(reader.next(waker: {})) == [UInt8](repeating: 1, count: 8))
        await withCheckedContinuation { done in DispatchQueue.global().async { second.wait(); done.resume() } }
        let secondAdmitted = admitted.load(ordering: .relaxed)
        #expect(secondAdmitted)
        #expect(taken(reader.next(waker: {})) == [UInt8](repeating: 2, count: 8))
    }

    /// The response holds the reader: once it goes (sent, or dropped with its connection), the
    /// producer is told to stop, even while it waits for room (well before its patience).
    @Test func theReaderGoingStopsTheProducer() {
        let stream = BodyStream(capacity: 4, patience: 600)
        var reader: BodyStream.Reader? = stream.makeReader()
        #expect(stream.push([1, 2, 3, 4]))
        let returned = Atomic<Int>(0)  // 0 waiting, 1 admitted, 2 refused
        DispatchQueue.global().async {
            returned.store(stream.push([5]) ? 1 : 2, ordering: .relaxed)
        }
        #expect(eventually { stream.isProducerWaiting })
        #expect(reader != nil)
        reader = nil
        #expect(eventually { returned.load(ordering: .relaxed) == 2 }, "refused at once, not after 600 s")
        #expect(stream.isCancelled && !stream.push([6]))
    }

    /// A producer whose reader takes nothing for its patience gives up, and the body fails: the
    /// reader finds the failure after the bytes that came (its connection then closes).
    @Test func aProducerOutOfPatienceFailsTheBody() {
        let stream = BodyStream(capacity: 4, patience: 0)
        let reader = stream.makeReader()
        #expect(stream.push([1, 2, 3, 4]))
        #expect(taken(reader.next(waker: {})) == [1, 2, 3, 4])
        #expect(stream.push([5, 6, 7]))
        #expect(!stream.push([8, 9]), "no room, and no patience to wait for it")
        #expect(taken(reader.next(waker: {})) == [5, 6, 7])
        #expect({ if case .failed = reader.next(waker: {}) { true } else { false } }())
    }
}
