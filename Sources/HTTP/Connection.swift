import CSystem
import Foundation

/// One client connection, confined to its event loop's thread.
///
/// Requests are answered strictly in order: the next pipelined request is parsed only when
/// the previous response is fully written, which also bounds the memory a client can pin.
final class Connection {
    let fd: Int32
    /// The client's address, as text: formatted once per connection, for access logs.
    let peer: String
    // The loop outlives every connection it owns; unowned(unsafe) spares a refcount check per use.
    private unowned(unsafe) let loop: EventLoop
    private var config: ServerConfiguration { loop.server.configuration }

    private var input: [UInt8] = []
    private var inputStart = 0
    /// Where the search for the end of the head resumes, so a slow client costs O(n), not O(n²).
    private var scannedUpTo = 0
    private var inputClosed = false
    private var contentToDiscard = 0

    private var output: [ResponseBody.Segment] = []
    private var outputIndex = 0

    private var responder: HTTPResponder?
    private var awaiting: (method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, target: String, started: Double)?
    private var inHandler = false
    private var responseDuringHandler: HTTPResponse?

    private var closeWhenWritten = false
    private var lingering = false
    private var closed = false
    private var registered: UInt32 = 0

    private var headerDeadline: Double?
    private var idleDeadline: Double?
    private var writeDeadline: Double?
    private var lingerDeadline: Double?

    private static let maxBufferedInput = 64 * 1024
    private static let lingerSeconds = 2.0
    private static let inlineBodyBytes = 2 * 1024

    init(fd: Int32, peer: String, loop: EventLoop, now: Double) {
        self.fd = fd
        self.peer = peer
        self.loop = loop
        headerDeadline = now + loop.server.configuration.headerTimeout
        registered = wantedEvents
    }

    private var bufferedInput: Int { input.count - inputStart }

    var wantedEvents: UInt32 {
        var events: UInt32 = 0
        if !inputClosed {
            events |= csys_epollrdhup()
            if bufferedInput < Self.maxBufferedInput || lingering { events |= csys_epollin() }
        }
        if outputIndex < output.count { events |= csys_epollout() }
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

    // MARK: - Events

    func handleEvents(_ mask: UInt32) {
        if mask & csys_epollerr() != 0 {
            close()
            return
        }
        if mask & csys_epollout() != 0 { flush() }
        if closed { return }
        if mask & (csys_epollin() | csys_epollrdhup() | csys_epollhup()) != 0 { readAvailable() }
    }

    private func readAvailable() {
        let n = loop.read(into: self)
        if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
            inputClosed = true
        }
        if lingering {
            inputStart = input.count
            if inputClosed { close() }
            return
        }
        if inputClosed && responder != nil {
            // The client left while its request was being worked on: drop the work.
            close()
            return
        }
        processInput()
        updateInterest()
    }

    func appendInput(_ bytes: UnsafeRawBufferPointer) {
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

    // MARK: - Requests

    private func processInput() {
        while !closed, responder == nil, outputIndex >= output.count, !closeWhenWritten {
            if contentToDiscard > 0 {
                let n = min(contentToDiscard, bufferedInput)
                consume(n)
                contentToDiscard -= n
                if contentToDiscard > 0 { break }
            }
            if bufferedInput == 0 {
                if inputClosed { close() }
                return
            }
            if headerDeadline == nil { headerDeadline = loop.now + config.headerTimeout }
            idleDeadline = nil
            guard headComplete() else {
                if inputClosed { close() }
                return
            }
            let outcome = input.withUnsafeBufferPointer {
                RequestParser.parse(UnsafeBufferPointer(rebasing: $0[inputStart...]), limits: config.limits)
            }
            switch outcome {
            case .incomplete:
                if inputClosed { close() }
                return
            case .failure(let failure):
                // The stream can no longer be framed: answer and close.
                let response = ProblemDetails(failure.status, detail: failure.detail).response
                report(method: "-", target: "-", response: response, sentBody: true, started: headerDeadline.map { $0 - config.headerTimeout } ?? loop.now)
                write(response, method: .get, version: .http11, keepAlive: false)
                return
            case .request(let request, let consumed):
                consume(consumed)
                let started = headerDeadline.map { $0 - config.headerTimeout } ?? loop.now
                headerDeadline = nil
                startExchange(request, started: started)
            }
        }
    }

    /// True when the buffer holds a blank line ending a head, or more than any valid head.
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
        if found {
            // Lines have arrived; let the parser look (it is cheap per line and stops early).
            scannedUpTo = input.count
            return true
        }
        scannedUpTo = input.count
        return false
    }

    private func startExchange(_ request: HTTPRequest, started: Double) {
        let keepAlive = request.wantsKeepAlive && !loop.isDraining
        var refusal: ProblemDetails?
        if request.hasTransferEncoding {
            refusal = ProblemDetails(.badRequest, detail: "request content with Transfer-Encoding is not accepted")
        } else if request.contentLength > config.maxDiscardedContentBytes {
            refusal = ProblemDetails(.contentTooLarge, detail: "request content is not accepted here")
        }
        if let refusal {
            report(method: request.method.token, target: request.target, response: refusal.response,
                   sentBody: request.method != .head, started: started)
            write(refusal.response, method: request.method, version: request.version, keepAlive: false)
            return
        }
        contentToDiscard = request.contentLength
        let responder = HTTPResponder(connection: self, loop: loop)
        self.responder = responder
        loop.server.inFlight.add(1, ordering: .relaxed)
        awaiting = (request.method, request.version, keepAlive, request.target, started)
        inHandler = true
        loop.server.handler.handle(request, responder: responder)
        inHandler = false
        if let response = responseDuringHandler {
            responseDuringHandler = nil
            finishExchange(response)
        }
    }

    /// Called on the loop thread by the responder.
    func responseArrived(_ response: HTTPResponse, from sender: HTTPResponder) {
        guard !closed, responder === sender else { return }
        if inHandler {
            responseDuringHandler = response
            return
        }
        finishExchange(response)
        if !closed {
            processInput()
            updateInterest()
        }
    }

    private func finishExchange(_ response: HTTPResponse) {
        guard let awaiting else { return }
        responder = nil
        self.awaiting = nil
        loop.server.inFlight.subtract(1, ordering: .relaxed)
        report(method: awaiting.method.token, target: awaiting.target, response: response,
               sentBody: awaiting.method != .head, started: awaiting.started)
        write(response, method: awaiting.method, version: awaiting.version, keepAlive: awaiting.keepAlive)
    }

    private func report(method: String, target: String, response: HTTPResponse, sentBody: Bool, started: Double) {
        guard let observer = loop.server.observer else { return }
        let bytes = sentBody && !response.status.forbidsBody ? response.body.count : 0
        observer.exchangeCompleted(CompletedExchange(client: peer, method: method, target: target, status: response.status.code,
                                                     bodyBytes: bytes, duration: max(0, MonotonicClock.now() - started),
                                                     responseHeaders: response.headers))
    }

    // MARK: - Writing

    private func write(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool) {
        let keepAlive = keepAlive && !loop.isDraining
        let sendsBody = method != .head && !response.status.forbidsBody
        var head = head(of: response, version: version, keepAlive: keepAlive)
        var segments = sendsBody ? response.body.segments[...] : []
        // A small in-memory body rides in the head's buffer: one send instead of two.
        if let first = segments.first, case .bytes(let bytes) = first, bytes.count <= Self.inlineBodyBytes {
            head.append(contentsOf: bytes)
            segments = segments.dropFirst()
        }
        output.append(.bytes(head[...]))
        output.append(contentsOf: segments)
        if !keepAlive { closeWhenWritten = true }
        flush()
    }

    private func head(of response: HTTPResponse, version: HTTPVersion, keepAlive: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + response.headers.count * 48)
        out.append(contentsOf: response.status.code == 200 ? Self.okStatusLine : Array("HTTP/1.1 \(response.status)\r\nServer: thumbd\r\n".utf8))
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

    private static let okStatusLine = Array("HTTP/1.1 200 OK\r\nServer: thumbd\r\n".utf8)

    private func flush() {
        let now = loop.now
        while outputIndex < output.count && !closed {
            let written: Int
            switch output[outputIndex] {
            case .bytes(let bytes):
                written = writeBytes(bytes)
            case .file(let file, let offset, let count):
                var off = off_t(offset)
                written = sendfile(fd, file.descriptor, &off, Int(min(count, 1 << 30)))
                if written == 0 {
                    // The file shrank under us: the promised length cannot be kept.
                    close()
                    return
                }
            }
            if written < 0 {
                if errno == EAGAIN || errno == EINTR {
                    if writeDeadline == nil { writeDeadline = now + config.idleTimeout }
                    updateInterest()
                    return
                }
                close()
                return
            }
            writeDeadline = now + config.idleTimeout
            advanceOutput(by: written)
        }
        guard !closed else { return }
        output.removeAll(keepingCapacity: true)
        outputIndex = 0
        writeDeadline = nil
        if closeWhenWritten {
            startLingeringClose(now: now)
            return
        }
        if responder == nil && bufferedInput == 0 { idleDeadline = now + config.idleTimeout }
        updateInterest()
    }

    /// Sends this byte segment, and the next one too when it is also in memory (a head and
    /// its body: one sendmsg, no copy). MSG_MORE corks a head until a file body follows.
    private func writeBytes(_ bytes: ArraySlice<UInt8>) -> Int {
        var next: ArraySlice<UInt8>?
        if outputIndex + 1 < output.count, case .bytes(let following) = output[outputIndex + 1] { next = following }
        let moreFollows = outputIndex + (next == nil ? 1 : 2) < output.count
        let flags = Int32(MSG_NOSIGNAL) | (moreFollows ? Int32(MSG_MORE) : 0)
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

    /// Half-closes and reads what the client still sends, so that unread request bytes
    /// do not make the kernel reset the connection and destroy the response in flight.
    private func startLingeringClose(now: Double) {
        guard !inputClosed else {
            close()
            return
        }
        shutdown(fd, Int32(SHUT_WR))
        lingering = true
        lingerDeadline = now + Self.lingerSeconds
        headerDeadline = nil
        idleDeadline = nil
        inputStart = input.count
        updateInterest()
    }

    // MARK: - Time and shutdown

    func checkTimeouts(now: Double) {
        if let deadline = lingerDeadline, now >= deadline { return close() }
        if let deadline = writeDeadline, now >= deadline { return close() }
        if let deadline = idleDeadline, now >= deadline, responder == nil { return close() }
        if let deadline = headerDeadline, now >= deadline, responder == nil, outputIndex >= output.count, !lingering {
            headerDeadline = nil
            if bufferedInput == 0 && contentToDiscard == 0 { return close() }
            let response = ProblemDetails(.requestTimeout, detail: "the request head did not arrive within \(config.headerTimeout) s").response
            report(method: "-", target: "-", response: response, sentBody: true, started: deadline - config.headerTimeout)
            write(response, method: .get, version: .http11, keepAlive: false)
        }
    }

    /// Server is shutting down: idle connections close now, busy ones after their response
    /// (one being written finishes first; one being worked on is answered with Connection: close).
    func drain() {
        guard responder == nil else { return }
        if outputIndex >= output.count {
            close()
        } else {
            closeWhenWritten = true
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        if awaiting != nil { loop.server.inFlight.subtract(1, ordering: .relaxed) }
        responder?.cancel()
        responder = nil
        loop.forget(self)
        Glibc.close(fd)
    }
}
