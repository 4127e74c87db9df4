import Clocks
import CSystem
import FileSystem
import Foundation
import HTTP

/// One client connection, confined to its event loop's thread: the buffers and system calls
/// around a `ConnectionStateMachine`, which decides what happens next.
///
/// Requests are answered strictly in order: the next pipelined request is parsed only when
/// the previous response is fully written, which also bounds the memory a client can pin.
package final class Connection {
    /// The socket's number, for the system calls (`socket` owns it).
    package let fd: Int32
    private var socket: FileDescriptor?
    /// The client's address, as text: formatted once per connection, for access logs.
    package let peer: String
    /// The peer is a configured trusted proxy: its requests' `X-Forwarded-For` names the client.
    private let peerIsTrusted: Bool
    // The loop outlives every connection it owns; unowned(unsafe) spares a refcount check per use.
    private unowned(unsafe) let loop: EventLoop
    private var config: ServerConfiguration { loop.server.configuration }
    private var machine: ConnectionStateMachine

    private var input: [UInt8] = []
    private var inputStart = 0
    /// Where the search for the end of the head resumes, so a slow client costs O(n), not O(n²).
    private var scannedUpTo = 0
    private var contentToDiscard = 0
    private var parsing = false

    // A plain array and an index rather than a Deque: a response is one to three segments,
    // appended together and written out before the next, so the array is emptied (keeping
    // its capacity) each time and never shifts.
    private var output: [ResponseBody.Segment] = []
    private var outputIndex = 0
    /// The next output is a stream's and none of its bytes has arrived: not writable until its waker runs.
    private var awaitingStream = false

    private var responder: HTTPResponder?
    private var exchange: (method: HTTPMethod, version: HTTPVersion, target: String, started: Double, client: String)?
    private var inHandler = false
    private var responseDuringHandler: HTTPResponse?
    private var registered = EpollEvents()

    private static let maxBufferedInput = 64 * 1024
    private static let inlineBodyBytes = 2 * 1024

    package init(socket: consuming FileDescriptor, peer: String, loop: EventLoop, now: Double) {
        fd = socket.raw
        self.socket = consume socket
        self.peer = peer
        self.loop = loop
        let configuration = loop.server.configuration
        let trusted = configuration.trustedProxies
        peerIsTrusted = !trusted.isEmpty && IPPrefix.addressBytes(peer).map { bytes in trusted.contains { $0.contains(bytes) } } == true
        machine = ConnectionStateMachine(
            timeouts: .init(header: configuration.headerTimeout, idle: configuration.idleTimeout,
                            response: configuration.responseTimeout),
            acceptedAt: now)
        registered = wantedEvents
    }

    private var bufferedInput: Int { input.count - inputStart }
    private var closed: Bool { machine.phase == .closed }
    private var hasOutput: Bool { outputIndex < output.count }

    package var wantedEvents: EpollEvents {
        var events = EpollEvents()
        if machine.wantsInput && (bufferedInput < Self.maxBufferedInput || machine.phase == .lingering) {
            events.formUnion([.readable, .peerClosedWriting])
        }
        if hasOutput && !awaitingStream { events.insert(.writable) }
        return events
    }

    private func updateInterest() {
        guard !closed else { return }
        let wanted = wantedEvents
        if wanted != registered {
            registered = wanted
            loop.updateInterest(self, events: wanted)
        }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .parse:
            processInput()
        case .probePeer:
            probePeer()
        case .answer(let status):
            answerInsteadOfHandler(status)
        case .shutDownWriting:
            shutdown(fd, Int32(SHUT_WR))
            discardInput()
        case .close:
            closeSocket()
        }
    }

    // MARK: - Events

    package func handleEvents(_ events: EpollEvents) {
        if !events.isDisjoint(with: [.error, .hangUp]) {
            return perform(machine.peerGone())
        }
        if events.contains(.writable) { flush() }
        if closed { return }
        if !events.isDisjoint(with: [.readable, .peerClosedWriting]) { readAvailable() }
        updateInterest()
    }

    private func readAvailable() {
        let n = loop.read(into: self)
        if n > 0 {
            if machine.phase == .lingering {
                discardInput()
                return
            }
            perform(machine.received(at: loop.now))
        } else if n == 0 {
            perform(machine.peerFinishedSending(at: loop.now))
        } else if errno != EAGAIN && errno != EINTR {
            perform(machine.peerGone())
        }
    }

    package func appendInput(_ bytes: UnsafeRawBufferPointer) {
        if inputStart > 0 && inputStart == input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
            scannedUpTo = 0
        }
        input.append(contentsOf: bytes)
    }

    private func consume(_ n: Int) {
        inputStart += n
        if inputStart >= input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
        } else if inputStart > 32 * 1024 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
        scannedUpTo = inputStart
    }

    private func discardInput() {
        input.removeAll(keepingCapacity: true)
        inputStart = 0
        scannedUpTo = 0
    }

    /// Sends the status line's first bytes while a request is worked on (see the state machine).
    private func probePeer() {
        let prefix = ConnectionStateMachine.statusPrefix
        let n = prefix.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n == prefix.count {
            machine.probeSent()
        } else if n < 0 && errno != EAGAIN && errno != EINTR {
            perform(machine.peerGone())
        }
        // A short write into an empty socket buffer does not happen; if it did, the
        // response would simply be sent whole later.
    }

    // MARK: - Requests

    /// Parses and starts the requests in the buffer, one at a time, for as long as the
    /// connection is waiting for one (a request answered at once lets the next follow).
    private func processInput() {
        guard !parsing else { return }  // the loop below is already running
        parsing = true
        defer { parsing = false }
        while case .reading = machine.phase {
            if contentToDiscard > 0 {
                let n = min(contentToDiscard, bufferedInput)
                consume(n)
                contentToDiscard -= n
                if contentToDiscard > 0 {
                    perform(machine.headIncomplete(partial: true, at: loop.now))
                    return
                }
            }
            guard bufferedInput > 0, headComplete() else {
                perform(machine.headIncomplete(partial: bufferedInput > 0, at: loop.now))
                return
            }
            let outcome = input.withUnsafeBufferPointer {
                RequestParser.parse(UnsafeBufferPointer(rebasing: $0[inputStart...]), limits: config.limits)
            }
            let started = machine.timer.map { $0.kind == .header ? $0.deadline - config.headerTimeout : loop.now } ?? loop.now
            switch outcome {
            case .incomplete:
                perform(machine.headIncomplete(partial: true, at: loop.now))
                return
            case .failure(let failure):
                // The stream can no longer be framed: answer and close.
                reject(ProblemDetails(failure.status, detail: failure.detail).response, method: "-", target: "-",
                       sendsBody: true, version: .http11, started: started)
            case .request(let request, let consumed):
                consume(consumed)
                startExchange(request, started: started)
            }
        }
    }

    /// True when the buffer holds a line end (a head may be complete), or more than any valid head.
    private func headComplete() -> Bool {
        let limit = config.limits.maxTargetBytes + config.limits.maxHeaderBytes + 128
        if bufferedInput > limit { return true }
        let found: Bool = input.withUnsafeBufferPointer { buf in
            var i = max(inputStart, scannedUpTo - 3)
            // A head ends at the first CRLFCRLF; a bare LF is an error the parser reports.
            while i < buf.count {
                if buf[i] == 10 { return true }
                i += 1
            }
            return false
        }
        scannedUpTo = input.count
        return found
    }

    private func startExchange(_ request: HTTPRequest, started: Double) {
        var refusal: ProblemDetails?
        if request.hasTransferEncoding {
            refusal = ProblemDetails(.badRequest, detail: "request content with Transfer-Encoding is not accepted")
        } else if request.contentLength > config.maxDiscardedContentBytes {
            refusal = ProblemDetails(.contentTooLarge, detail: "request content is not accepted here")
        }
        if let refusal {
            return reject(refusal.response, method: request.method.token, target: request.target,
                          sendsBody: request.method != .head, version: request.version, started: started)
        }
        contentToDiscard = request.contentLength
        machine.requestReceived(keepAlive: request.wantsKeepAlive, at: loop.now)
        let responder = HTTPResponder(connection: self, loop: loop)
        self.responder = responder
        loop.server.gauges.requestsInFlight.add(1, ordering: .relaxed)
        var client = peer
        if peerIsTrusted, let forwarded = ForwardedFor.client(request.headers.values(.xForwardedFor), trusted: config.trustedProxies) {
            client = forwarded
        }
        exchange = (request.method, request.version, request.target, started, client)
        inHandler = true
        loop.server.handler.handle(request, responder: responder)
        inHandler = false
        if let response = responseDuringHandler {
            responseDuringHandler = nil
            finishExchange(response)
        }
    }

    private func reject(_ response: HTTPResponse, method: String, target: String, sendsBody: Bool, version: HTTPVersion,
                        started: Double) {
        report(method: method, target: target, tag: -1, response: response, sentBody: sendsBody, started: started)
        machine.requestRejected(at: loop.now)
        write(response, sendsBody: sendsBody, version: version)
    }

    /// Called on the loop thread by the responder.
    package func responseArrived(_ response: HTTPResponse, from sender: HTTPResponder) {
        guard !closed, responder === sender else { return }
        if inHandler {
            responseDuringHandler = response
            return
        }
        finishExchange(response)
        updateInterest()
    }

    private func finishExchange(_ response: HTTPResponse) {
        guard let exchange, let responder else { return }
        self.responder = nil
        self.exchange = nil
        loop.server.gauges.requestsInFlight.subtract(1, ordering: .relaxed)
        report(method: exchange.method.token, target: exchange.target, tag: responder.tag, response: response,
               sentBody: exchange.method != .head, started: exchange.started, client: exchange.client)
        machine.responseReady(at: loop.now)
        write(response, sendsBody: exchange.method != .head, version: exchange.version)
    }

    /// The handler took too long (or the head never completed): the answer comes from here.
    private func answerInsteadOfHandler(_ status: HTTPStatus) {
        var response: HTTPResponse
        if status == .requestTimeout {
            response = ProblemDetails(status, detail: "the request head did not arrive within \(config.headerTimeout) s").response
        } else {
            response = ProblemDetails(status, detail: "the response took longer than \(config.responseTimeout) s").response
            response.headers.set(.retryAfter, "1")
        }
        let exchange = self.exchange ?? (.get, .http11, "-", loop.now - config.headerTimeout, peer)
        let tag = responder?.tag ?? -1
        if responder != nil {
            responder?.cancel()
            responder = nil
            self.exchange = nil
            loop.server.gauges.requestsInFlight.subtract(1, ordering: .relaxed)
        }
        report(method: exchange.method.token, target: exchange.target, tag: tag, response: response,
               sentBody: exchange.method != .head, started: exchange.started, client: exchange.client)
        write(response, sendsBody: exchange.method != .head, version: exchange.version)
    }

    private func report(method: String, target: String, tag: Int, response: HTTPResponse, sentBody: Bool, started: Double,
                        client: String? = nil) {
        guard let observer = loop.server.observer else { return }
        let bytes = sentBody && !response.status.forbidsBody ? response.body.count : 0
        observer.exchangeCompleted(CompletedExchange(client: client ?? peer, method: method, target: target, tag: tag,
                                                     status: response.status.code, bodyBytes: bytes,
                                                     duration: max(0, loop.now - started), annotation: response.annotation))
    }

    // MARK: - Writing

    private func write(_ response: HTTPResponse, sendsBody: Bool, version: HTTPVersion) {
        let sendsBody = sendsBody && !response.status.forbidsBody
        var head = head(of: response, version: version, keepAlive: !machine.closeAfterResponse)
        var segments = sendsBody ? response.body.segments[...] : []
        // A small in-memory body rides in the head's buffer: one send instead of two.
        if let first = segments.first, case .bytes(let bytes) = first, bytes.count <= Self.inlineBodyBytes {
            head.append(contentsOf: bytes)
            segments = segments.dropFirst()
        }
        let skip = machine.statusPrefixSent ? ConnectionStateMachine.statusPrefix.count : 0
        output.append(.bytes(head[skip...]))
        output.append(contentsOf: segments)
        flush()
    }

    private func head(of response: HTTPResponse, version: HTTPVersion, keepAlive: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + response.headers.count * 48)
        out.append(contentsOf: response.status.code == 200 ? Self.okStatusLine : Array("HTTP/1.1 \(response.status)\r\n\(Self.serverFields)".utf8))
        out.append(contentsOf: loop.dateHeaderLine())
        response.appendFields(to: &out)
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if version == .http10 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        return out
    }

    /// On every response: the server's name, and `nosniff`, so no browser reads a body as
    /// another type than the one it is sent as (an image as HTML, a problem as script).
    package static let serverFields = "Server: thumbd\r\nX-Content-Type-Options: nosniff\r\n"
    private static let okStatusLine = Array("HTTP/1.1 200 OK\r\n\(serverFields)".utf8)

    private func flush() {
        while hasOutput && !closed {
            let written: Int
            switch output[outputIndex] {
            case .bytes(let bytes):
                written = writeBytes(bytes)
            case .file(let file, let offset, let count):
                var off = off_t(offset)
                written = sendfile(fd, file.descriptor, &off, Int(min(count, 1 << 30)))
                if written == 0 {
                    // The file shrank under us: the promised length cannot be kept.
                    return perform(machine.peerGone())
                }
            case .stream(let reader, let count):
                guard takeStreamed(reader, count: count) else { return }
                continue
            }
            if written < 0 {
                if errno == EAGAIN || errno == EINTR {
                    updateInterest()
                    return
                }
                return perform(machine.peerGone())
            }
            machine.wrote(at: loop.now)
            advanceOutput(by: written)
        }
        guard !closed else { return }
        output.removeAll(keepingCapacity: true)
        outputIndex = 0
        // Whatever was received meanwhile (a pipelined request) is looked at now.
        perform(machine.outputFlushed(bufferedInput: bufferedInput > 0 || contentToDiscard > 0, at: loop.now))
        updateInterest()
    }

    /// Puts the bytes `reader` has ready before its segment (which keeps what is still to come).
    /// False when there are none yet (the loop is woken when they come) or the stream broke its
    /// promised length (the connection closes: the client sees a short body, as HTTP says).
    private func takeStreamed(_ reader: BodyStream.Reader, count: Int64) -> Bool {
        let connection = LoopBound(self)
        let loop = self.loop
        switch reader.next(waker: { loop.execute { connection.value.streamArrived() } }) {
        case .bytes(let chunks):
            let arrived = chunks.reduce(Int64(0)) { $0 + Int64($1.count) }
            guard arrived <= count else {
                perform(machine.peerGone())
                return false
            }
            var replacement = chunks.map { ResponseBody.Segment.bytes($0[...]) }
            if arrived < count { replacement.append(.stream(reader, count: count - arrived)) }
            // What was written goes too: a long stream would otherwise hold every chunk it sent.
            output.replaceSubrange(0...outputIndex, with: replacement)
            outputIndex = 0
            return true
        case .waiting:
            awaitingStream = true
            updateInterest()
            return false
        case .finished, .failed:
            perform(machine.peerGone())
            return false
        }
    }

    /// A stream this connection waits for has bytes (or ended).
    private func streamArrived() {
        guard awaitingStream, !closed else { return }
        awaitingStream = false
        flush()
        updateInterest()
    }

    /// Byte segments in memory sent by one sendmsg at most: a streamed body's chunks waiting
    /// together go out in one call rather than in pairs.
    static let gatherLimit = 64

    /// Sends this byte segment and the ones in memory right after it (a head and its body; a
    /// stream's chunks), at most `gatherLimit`, in one sendmsg and without copying. MSG_MORE
    /// corks them until a file body follows.
    private func writeBytes(_ bytes: ArraySlice<UInt8>) -> Int {
        var end = outputIndex + 1
        while end < output.count, end - outputIndex < Self.gatherLimit, case .bytes = output[end] { end += 1 }
        // Not before a stream: its bytes may be a while coming, and corked bytes would wait.
        var moreFollows = end < output.count
        if moreFollows, case .stream = output[end] { moreFollows = false }
        let flags = Int32(MSG_NOSIGNAL) | (moreFollows ? Int32(MSG_MORE) : 0)
        if end - outputIndex > 2 {
            var vectors: [iovec] = []
            vectors.reserveCapacity(end - outputIndex)
            return gatherAndSend(from: outputIndex, to: end, &vectors, flags: flags)
        }
        var next: ArraySlice<UInt8>?
        if end - outputIndex == 2, case .bytes(let following) = output[outputIndex + 1] { next = following }
        return bytes.withUnsafeBytes { first in
            guard let next else { return send(fd, first.baseAddress, first.count, flags) }
            return next.withUnsafeBytes { second in
                var vectors = (iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
                               iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count))
                return withUnsafeMutablePointer(to: &vectors) { pair in
                    pair.withMemoryRebound(to: iovec.self, capacity: 2) { vec in
                        var message = msghdr()
                        message.msg_iov = vec
                        message.msg_iovlen = 2
                        return sendmsg(fd, &message, flags)
                    }
                }
            }
        }
    }

    /// The byte segments `index..<end` of the output as iovecs (each pointer valid inside its
    /// segment's closure, so the closures nest), then one sendmsg of them all.
    private func gatherAndSend(from index: Int, to end: Int, _ vectors: inout [iovec], flags: Int32) -> Int {
        guard index < end else {
            return vectors.withUnsafeMutableBufferPointer { vec in
                var message = msghdr()
                message.msg_iov = vec.baseAddress
                message.msg_iovlen = vec.count
                return sendmsg(fd, &message, flags)
            }
        }
        guard case .bytes(let segment) = output[index] else { preconditionFailure("only byte segments are gathered") }
        return segment.withUnsafeBytes { raw in
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count))
            return gatherAndSend(from: index + 1, to: end, &vectors, flags: flags)
        }
    }

    private func advanceOutput(by written: Int) {
        var remaining = Int64(written)
        while remaining > 0, outputIndex < output.count {
            let segment = output[outputIndex]
            if segment.count <= remaining {
                remaining -= segment.count
                outputIndex += 1
            } else {
                output[outputIndex] = segment.slice(remaining..<segment.count)
                remaining = 0
            }
        }
        while outputIndex < output.count, output[outputIndex].count == 0 { outputIndex += 1 }
    }

    // MARK: - Time and shutdown

    package func checkTimeouts(now: Double) {
        perform(machine.tick(at: now))
        updateInterest()
    }

    /// The server is shutting down: idle connections are shut for writing now, busy ones
    /// after their response; each closes when its peer does (or at the drain deadline).
    package func drain() {
        perform(machine.drain(at: loop.now))
        updateInterest()
    }

    /// Closes at once (the server stops).
    package func close() {
        _ = machine.peerGone()
        closeSocket()
    }

    private func closeSocket() {
        guard let owned = socket.take() else { return }
        if responder != nil {
            loop.server.gauges.requestsInFlight.subtract(1, ordering: .relaxed)
            responder?.cancel()
            responder = nil
        }
        exchange = nil
        output.removeAll()
        awaitingStream = false
        loop.forget(self)
        owned.close()
    }
}

/// A connection handed to its own loop's `execute` from another thread (a stream's producer).
private struct LoopBound: @unchecked Sendable {
    let value: Connection

    init(_ value: Connection) { self.value = value }
}
