import HTTP
@testable import HTTPServer
import PropertyBased
import Testing

/// The connection's decisions, driven with plain numbers for time: no sockets, no sleeping.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    let timeouts = Machine.Timeouts(header: 10, idle: 75, response: 60, linger: 2)

    func accepted(at t: Double = 0) -> Machine { Machine(timeouts: timeouts, acceptedAt: t) }

    /// A machine that has answered one request on a kept-alive connection and is idle.
    func idleAfterOneExchange() -> Machine {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        m.responseReady(at: 2)
        _ = m.outputFlushed(bufferedInput: false, at: 3)
        return m
    }

    @Test func aSilentClientIsClosedWithoutAnAnswerAtTheHeaderTimeout() {
        var m = accepted()
        #expect(m.timer == .init(kind: .header, deadline: 10))
        #expect(m.tick(at: 9.9) == .none)
        #expect(m.tick(at: 10) == .close)
        #expect(m.phase == .closed && m.timer == nil)
    }

    @Test func aPartialHeadGets408AtTheHeaderTimeoutCountedFromTheAccept() {
        var m = accepted()
        #expect(m.received(at: 4) == .parse)
        #expect(m.headIncomplete(partial: true, at: 4) == .none)
        #expect(m.timer?.deadline == 10)
        #expect(m.tick(at: 10) == .answer(.requestTimeout))
        #expect(m.phase == .writing && m.closeAfterResponse)
        #expect(m.outputFlushed(bufferedInput: false, at: 10) == .shutDownWriting)
        #expect(m.phase == .lingering && m.timer == .init(kind: .linger, deadline: 12))
        #expect(m.tick(at: 12) == .close)
    }

    @Test func theHandlerHasTheResponseTimeoutThen503() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        #expect(m.phase == .handling && m.timer == .init(kind: .response, deadline: 61))
        #expect(m.tick(at: 60) == .none)
        #expect(m.tick(at: 61) == .answer(.serviceUnavailable))
        #expect(m.closeAfterResponse)
    }

    @Test func aStalledWriteTimesOutAndProgressRestartsItsTimer() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        m.responseReady(at: 2)
        #expect(m.timer == .init(kind: .write, deadline: 77))
        m.wrote(at: 50)
        #expect(m.tick(at: 100) == .none)
        #expect(m.tick(at: 125) == .close)
    }

    @Test func anIdleKeepAliveConnectionClosesAtTheIdleTimeout() {
        var m = idleAfterOneExchange()
        #expect(m.phase == .reading(partial: false) && m.timer == .init(kind: .idle, deadline: 78))
        #expect(m.tick(at: 77) == .none)
        #expect(m.tick(at: 78) == .close)
    }

    @Test func theFirstByteOfTheNextRequestStartsItsHeaderTimer() {
        var m = idleAfterOneExchange()
        #expect(m.received(at: 20) == .parse)
        #expect(m.timer == .init(kind: .header, deadline: 30))
    }

    /// The pipelining defect: input that arrived while a response was written must be
    /// looked at as soon as the write completes, with a timer running.
    @Test func inputBufferedDuringAResponseIsParsedWhenTheWriteCompletes() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        #expect(m.received(at: 1) == .none)  // the pipelined request waits for its turn
        m.responseReady(at: 2)
        #expect(m.outputFlushed(bufferedInput: true, at: 30) == .parse)
        #expect(m.phase == .reading(partial: true) && m.timer == .init(kind: .header, deadline: 40))
    }

    /// A half-close after a complete request: the request is answered, then the connection
    /// closes; the status line's first bytes go out early to tell it from a full close.
    @Test func aHalfClosingPeerIsAnsweredThenClosed() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        #expect(m.peerFinishedSending(at: 1) == .probePeer)
        #expect(m.phase == .handling && m.timer?.kind == .response)
        m.probeSent()
        #expect(m.statusPrefixSent)
        #expect(m.peerFinishedSending(at: 1.5) == .none)
        #expect(!m.wantsInput)
        m.responseReady(at: 2)
        #expect(m.statusPrefixSent)
        #expect(m.outputFlushed(bufferedInput: false, at: 3) == .close)
    }

    @Test func requestsPipelinedBeforeAHalfCloseAreAllAnswered() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        m.responseReady(at: 1)
        #expect(m.peerFinishedSending(at: 1) == .none)  // writing: no probe needed
        #expect(m.outputFlushed(bufferedInput: true, at: 2) == .parse)
        m.requestReceived(keepAlive: true, at: 2)
        m.responseReady(at: 2)
        #expect(m.outputFlushed(bufferedInput: true, at: 3) == .parse)
        #expect(m.headIncomplete(partial: true, at: 3) == .close)  // a fragment after FIN is no request
    }

    @Test func aPeerThatFinishesWhileIdleOrLingeringIsClosed() {
        var idle = idleAfterOneExchange()
        #expect(idle.peerFinishedSending(at: 5) == .close)
        var lingering = accepted()
        _ = lingering.received(at: 1)
        lingering.requestReceived(keepAlive: false, at: 1)
        lingering.responseReady(at: 1)
        #expect(lingering.outputFlushed(bufferedInput: false, at: 1) == .shutDownWriting)
        #expect(lingering.peerFinishedSending(at: 1.5) == .close)
    }

    @Test func aResetClosesAtOnceInAnyPhase() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestReceived(keepAlive: true, at: 1)
        #expect(m.peerGone() == .close)
        #expect(m.peerGone() == .none)
        #expect(m.tick(at: 1000) == .none)
    }

    @Test func drainingShutsConnectionsForWritingThenWaitsForEachPeerToClose() {
        // Idle: shut for writing at once (its last response may still be on its way).
        var idle = idleAfterOneExchange()
        #expect(idle.drain(at: 5) == .shutDownWriting)
        #expect(idle.phase == .lingering)
        // The linger timer runs out: while the server drains, it waits on for the peer...
        #expect(idle.tick(at: 7) == .none)
        #expect(idle.phase == .lingering && idle.timer == .init(kind: .linger, deadline: 9))
        // ... which closes once it has read everything.
        #expect(idle.peerFinishedSending(at: 8) == .close)
        // Busy: after its response, which says Connection: close, the same.
        var busy = accepted()
        _ = busy.received(at: 1)
        busy.requestReceived(keepAlive: true, at: 1)
        #expect(busy.drain(at: 1.5) == .none)
        #expect(busy.closeAfterResponse)
        busy.responseReady(at: 2)
        #expect(busy.outputFlushed(bufferedInput: true, at: 2) == .shutDownWriting)
        #expect(busy.tick(at: 4) == .none && busy.phase == .lingering)
        // In the middle of a request head: closed at once.
        var partial = accepted()
        _ = partial.received(at: 1)
        _ = partial.headIncomplete(partial: true, at: 1)
        #expect(partial.drain(at: 2) == .close)
        // Not draining, a lingering connection closes when its timer runs out.
        var lingering = accepted()
        _ = lingering.received(at: 1)
        lingering.requestReceived(keepAlive: false, at: 1)
        lingering.responseReady(at: 1)
        _ = lingering.outputFlushed(bufferedInput: false, at: 1)
        #expect(lingering.tick(at: 3) == .close)
    }

    @Test func aRejectedRequestIsAnsweredThenTheConnectionLingersAndCloses() {
        var m = accepted()
        _ = m.received(at: 1)
        m.requestRejected(at: 1)
        #expect(m.phase == .writing && m.closeAfterResponse)
        #expect(m.outputFlushed(bufferedInput: true, at: 1) == .shutDownWriting)
    }

    enum Event: CaseIterable { case received, incomplete, request, response, wrote, flushed, flushedWithInput, finish, probe, gone, tick, drain }

    /// Whatever happens, in any order: a connection that is not closed always has a timer
    /// that lies ahead of when it was set, and a closed one stays closed with none.
    @Test func everyOpenPhaseHasATimerWhateverHappens() async {
        await propertyCheck(input: Gen.int(in: 0...11).array(of: 1...60)) { events in
            var m = accepted()
            var now = 0.0
            var closed = false
            for code in events {
                now += 0.7
                switch Event.allCases[code] {
                case .received: _ = m.received(at: now)
                case .incomplete: _ = m.headIncomplete(partial: code % 2 == 0, at: now)
                case .request: if case .reading = m.phase { m.requestReceived(keepAlive: now.truncatingRemainder(dividingBy: 2) < 1, at: now) }
                case .response: m.responseReady(at: now)
                case .wrote: m.wrote(at: now)
                case .flushed: _ = m.outputFlushed(bufferedInput: false, at: now)
                case .flushedWithInput: _ = m.outputFlushed(bufferedInput: true, at: now)
                case .finish: _ = m.peerFinishedSending(at: now)
                case .probe: if m.phase == .handling { m.probeSent() }
                case .gone: _ = m.peerGone()
                case .tick: now += 30; _ = m.tick(at: now)
                case .drain: _ = m.drain(at: now)
                }
                if closed { #expect(m.phase == .closed) }
                if m.phase == .closed {
                    closed = true
                    #expect(m.timer == nil)
                } else {
                    #expect(m.timer != nil, "phase \(m.phase) has no timer")
                }
            }
        }
    }
}
