/// The life of one connection, decided without any I/O: events go in (bytes arrived, a
/// request was parsed, a response is ready, the output is written, the peer finished or
/// vanished, time passed) and each returns the one thing the connection must do next.
/// `Connection` performs the actions. Every phase has a timer, so no connection can be
/// left waiting for something that never comes.
///
/// A peer that shuts down its sending side (FIN) after a request is asking for no more: its
/// requests are still answered, then the connection closes. A FIN cannot be told apart from
/// a peer that closed its socket entirely until something is sent, so while a request is
/// being worked on the first bytes of the status line, which every response begins with,
/// are sent at once: a closed peer answers them with a reset and its work is dropped.
import Clocks
import HTTP

package struct ConnectionStateMachine {
    package struct Timeouts: Sendable, Equatable {
        /// A request head must be complete this long after the connection was accepted, or
        /// after its first byte arrived on a kept-alive connection.
        package var header: Double
        /// A kept-alive connection may wait this long for its next request, and a response
        /// may go this long without any of it being written.
        package var idle: Double
        /// The handler has this long to answer.
        package var response: Double
        /// After the last response, what the client still sends is read and dropped for this long.
        package var linger: Double = 2

        package init(header: Double, idle: Double, response: Double, linger: Double = 2) {
            self.header = header
            self.idle = idle
            self.response = response
            self.linger = linger
        }
    }

    package enum Phase: Equatable {
        /// Waiting for a request head; `partial` once some of it (or request content to
        /// discard) is expected.
        case reading(partial: Bool)
        /// A request is with the handler.
        case handling
        /// A response is being written.
        case writing
        /// Our side is shut; reading what the client still sends, then closing.
        case lingering
        case closed
    }

    package enum TimerKind: Equatable {
        case header, idle, response, write, linger
    }

    package struct Timer: Equatable {
        package var kind: TimerKind
        package var deadline: Double

        package init(kind: TimerKind, deadline: Double) {
            self.kind = kind
            self.deadline = deadline
        }
    }

    package enum Action: Equatable {
        case none
        /// Look for a complete request in the buffered input.
        case parse
        /// Send the status line's first bytes now, to learn whether the peer is still there.
        case probePeer
        /// Cancel the handler's work, if any, and answer with this status; the connection
        /// closes after it.
        case answer(HTTPStatus)
        /// Shut down our sending side and linger.
        case shutDownWriting
        /// Close the socket (cancelling any work under way).
        case close
    }

    /// The first bytes of every response's status line.
    package static let statusPrefix = Array("HTTP/1.1 ".utf8)

    package let timeouts: Timeouts
    private(set) var phase: Phase = .reading(partial: false)
    private(set) var timer: Timer?
    /// The peer sent FIN: no more requests will come.
    private(set) var peerFinished = false
    /// The response being made or written is the last one on this connection.
    private(set) var closeAfterResponse = false
    /// The status prefix went out as a probe and must not be sent again.
    private(set) var statusPrefixSent = false
    private(set) var draining = false

    package init(timeouts: Timeouts, acceptedAt now: Double) {
        self.timeouts = timeouts
        timer = Timer(kind: .header, deadline: now + timeouts.header)
    }

    /// True while reading can still bring requests or show the peer's close.
    package var wantsInput: Bool {
        switch phase {
        case .closed: false
        case .lingering: true
        default: !peerFinished
        }
    }

    // MARK: - Input

    /// Bytes arrived from the peer.
    package mutating func received(at now: Double) -> Action {
        guard case .reading(let partial) = phase else { return .none }
        if !partial {
            phase = .reading(partial: true)
            // A kept-alive connection's head timer starts with its first byte.
            if timer?.kind == .idle { timer = Timer(kind: .header, deadline: now + timeouts.header) }
        }
        return .parse
    }

    /// The buffered input holds no complete head yet; `partial` tells whether it holds any of one.
    package mutating func headIncomplete(partial: Bool, at now: Double) -> Action {
        guard case .reading = phase else { return .none }
        if peerFinished { return close() }
        phase = .reading(partial: partial)
        return .none
    }

    /// The peer sent FIN.
    package mutating func peerFinishedSending(at now: Double) -> Action {
        guard !peerFinished else { return .none }
        peerFinished = true
        switch phase {
        case .reading:
            // Input is parsed as it arrives: whatever is buffered is no complete request.
            return close()
        case .handling:
            return statusPrefixSent ? .none : .probePeer
        case .writing:
            return .none
        case .lingering:
            return close()
        case .closed:
            return .none
        }
    }

    /// The probe went out; the response must start after it.
    package mutating func probeSent() {
        statusPrefixSent = true
    }

    /// The peer reset the connection, or a read or write failed: nobody is there.
    package mutating func peerGone() -> Action {
        close()
    }

    // MARK: - Exchanges

    /// A request head was parsed and goes to the handler.
    package mutating func requestReceived(keepAlive: Bool, at now: Double) {
        phase = .handling
        closeAfterResponse = !keepAlive || draining
        timer = Timer(kind: .response, deadline: now + timeouts.response)
    }

    /// The input cannot be framed (or the request is refused before any handler sees it):
    /// an error response is written and the connection closes after it.
    package mutating func requestRejected(at now: Double) {
        closeAfterResponse = true
        startWriting(at: now)
    }

    /// The handler's response is ready to be written.
    package mutating func responseReady(at now: Double) {
        guard phase == .handling else { return }
        startWriting(at: now)
    }

    private mutating func startWriting(at now: Double) {
        phase = .writing
        timer = Timer(kind: .write, deadline: now + timeouts.idle)
    }

    /// Some of the output was written: the stall timer starts again.
    package mutating func wrote(at now: Double) {
        guard phase == .writing else { return }
        timer = Timer(kind: .write, deadline: now + timeouts.idle)
    }

    /// The whole response is written. `bufferedInput`: bytes (a pipelined request, perhaps)
    /// already received and waiting.
    package mutating func outputFlushed(bufferedInput: Bool, at now: Double) -> Action {
        guard phase == .writing else { return .none }
        statusPrefixSent = false
        if closeAfterResponse {
            if peerFinished { return close() }
            phase = .lingering
            timer = Timer(kind: .linger, deadline: now + timeouts.linger)
            return .shutDownWriting
        }
        if bufferedInput {
            phase = .reading(partial: true)
            timer = Timer(kind: .header, deadline: now + timeouts.header)
            return .parse
        }
        if peerFinished { return close() }
        phase = .reading(partial: false)
        timer = Timer(kind: .idle, deadline: now + timeouts.idle)
        return .none
    }

    // MARK: - Time and shutdown

    /// Time passed: the action of the timer that ran out, if any.
    package mutating func tick(at now: Double) -> Action {
        guard let timer, now >= timer.deadline else { return .none }
        switch timer.kind {
        case .header:
            // Nothing at all arrived: close silently, as nginx does; part of a head: 408.
            guard phase == .reading(partial: true) else { return close() }
            closeAfterResponse = true
            startWriting(at: now)
            return .answer(.requestTimeout)
        case .response:
            closeAfterResponse = true
            startWriting(at: now)
            return .answer(.serviceUnavailable)
        case .linger where draining:
            // The process exits once the drain is over, and in a container its network goes
            // with it, taking along whatever the kernel (or a proxy such as docker-proxy)
            // still holds for a slow client: its body would end short. So while draining, a
            // connection shut for writing waits for the peer to close, which it does on
            // reading the end of the response; the server's drain deadline bounds the wait.
            self.timer = Timer(kind: .linger, deadline: now + timeouts.linger)
            return .none
        case .idle, .write, .linger:
            return close()
        }
    }

    /// The server stops: idle connections are shut for writing now, busy ones after their
    /// response; then each waits for its peer to close (see `tick`). One in the middle of a
    /// request head closes now.
    package mutating func drain(at now: Double = 0) -> Action {
        draining = true
        switch phase {
        case .reading(partial: false):
            // The last response may still be on its way (in the kernel, or in a proxy).
            phase = .lingering
            timer = Timer(kind: .linger, deadline: now + timeouts.linger)
            return .shutDownWriting
        case .reading:
            return close()
        case .handling, .writing:
            closeAfterResponse = true
            return .none
        case .lingering, .closed:
            return .none
        }
    }

    private mutating func close() -> Action {
        guard phase != .closed else { return .none }
        phase = .closed
        timer = nil
        return .close
    }
}
