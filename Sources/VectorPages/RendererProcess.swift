import Clocks
import CSystem
import Glibc
import Imaging

/// One renderer process, from the server's side: its pid and the two pipes to it. Used by one
/// thread at a time (the pool hands it out), never shared while an exchange runs.
final class RendererProcess: @unchecked Sendable {
    let pid: pid_t
    /// The write end of the renderer's stdin.
    private let input: Int32
    /// The read end of its stdout.
    private let output: Int32
    /// Whether its seccomp filter is on (else it runs under its rlimits only): its hello says.
    private(set) var sandboxed = false
    /// Requests it answered.
    private(set) var answered = 0
    private var ended = false

    enum Failure: Error, Equatable {
        /// The process could not be started, or said nothing at start.
        case cannotStart(String)
        /// It was gone before the request reached it: a fresh one may take it.
        case gone
        /// Past its deadline: killed.
        case timedOut
        /// Nobody wanted the answer any more: killed.
        case stopped
        /// It died while working: `why` (a signal, a limit).
        case died(String)
        /// It answered something that is no reply.
        case garbled
    }

    private init(pid: pid_t, input: Int32, output: Int32) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    /// Starts `command` with `environment` ("NAME=value" lines) and waits (up to `timeout`
    /// seconds) for its hello.
    static func start(_ command: [String], environment: [String], timeout: Double) throws(Failure) -> RendererProcess {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard csys_pipe(&toChild) == 0 else { throw .cannotStart("no pipe: errno \(errno)") }
        guard csys_pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw .cannotStart("no pipe: errno \(errno)")
        }
        var pid: pid_t = 0
        let copies = command.map { strdup($0) }, variables = environment.map { strdup($0) }
        defer { (copies + variables).forEach { free($0) } }
        let rc = (copies + [nil]).withUnsafeBufferPointer { argv in
            (variables + [nil]).withUnsafeBufferPointer { envp in
                csys_spawn(command[0], argv.baseAddress, envp.baseAddress, toChild[0], fromChild[1], &pid)
            }
        }
        close(toChild[0])
        close(fromChild[1])
        // Writes wait in steps, asking the deadline: a renderer that stops reading holds nobody.
        _ = csys_set_nonblocking(toChild[1])
        guard rc == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw .cannotStart("\(command[0]) could not be started: \(String(cString: strerror(rc)))")
        }
        let process = RendererProcess(pid: pid, input: toChild[1], output: fromChild[0])
        let deadline = SystemClock.now() + timeout
        guard let hello = process.reply(maxBody: 1024, keepWaiting: { SystemClock.now() < deadline }), hello.outcome == .ready else {
            let why = process.end()
            throw .cannotStart("\(command.joined(separator: " ")) did not start: \(why ?? "it said nothing")")
        }
        process.sandboxed = String(decoding: hello.body, as: UTF8.self) == "seccomp"
        return process
    }

    /// Sets the CPU seconds and the address-space growth the process may spend on `request`
    /// (its soft rlimits, from the server's side), sends it and waits for its reply until
    /// `deadline` (on `clock`) or until `stop` says nobody wants it; past either, the process
    /// is killed.
    func exchange(_ request: RenderRequest, cpuSeconds: Double, memoryBytes: Int, deadline: Double, clock: any MonotonicClock,
                  stop: StopCheck?, maxBody: Int) -> Result<RenderReply, Failure> {
        var cut: Failure?
        let keepWaiting = {
            if clock.now() >= deadline { cut = .timedOut } else if stop?.shouldStop() == true { cut = .stopped }
            return cut == nil
        }
        guard csys_limit_child(pid, cpuSeconds, UInt64(max(0, memoryBytes))) == 0 else {
            _ = end()
            return .failure(.gone)
        }
        guard Pipe.write(input, request.head, keepWaiting: keepWaiting),
              Pipe.write(input, request.document, keepWaiting: keepWaiting) else {
            let why = end()
            // Gone before it read: a fresh one may take it; alive but not reading: killed.
            return .failure(cut ?? (why != nil ? .gone : .died("it stopped reading its input")))
        }
        let reply = reply(maxBody: maxBody, keepWaiting: keepWaiting)
        guard let reply else {
            let why = end()
            return .failure(cut ?? (why.map { .died($0) } ?? .garbled))
        }
        answered += 1
        return .success(reply)
    }

    /// One reply frame; nil when the process closed its side, sent no such frame, or
    /// `keepWaiting` said no.
    private func reply(maxBody: Int, keepWaiting: () -> Bool) -> RenderReply? {
        guard let head = Pipe.read(output, count: RenderReply.headLength, keepWaiting: keepWaiting),
              let (parsed, loaderLength, bodyLength) = RenderReply.parse(head: head, maxBody: maxBody),
              let loader = Pipe.read(output, count: loaderLength, keepWaiting: keepWaiting),
              let body = Pipe.read(output, count: bodyLength, keepWaiting: keepWaiting) else { return nil }
        var reply = parsed
        reply.loader = String(decoding: loader, as: UTF8.self)
        reply.body = body
        return reply
    }

    /// Ends the process: its pipes closed, then, when it has not exited of itself within
    /// `grace` seconds (it exits when it reads the end of its input), killed; reaped either way,
    /// once. Says how it ended when it was not by this call.
    @discardableResult
    func end(grace: Double = 0) -> String? {
        guard !ended else { return nil }
        ended = true
        close(input)
        close(output)
        var status: Int32 = 0, signal: Int32 = 0
        var waited = 0.0
        while true {
            if csys_reap(pid, 0, &status, &signal) == 1 { return Self.describe(status: status, signal: signal) }
            guard waited < grace else { break }
            usleep(5_000)
            waited += 0.005
        }
        kill(pid, SIGKILL)
        _ = csys_reap(pid, 1, &status, &signal)
        return nil
    }

    /// Lets the process go: it exits when it reads the end of its input, or is killed after
    /// 0.1 s.
    func retire() { end(grace: 0.1) }

    static func describe(status: Int32, signal: Int32) -> String {
        switch signal {
        case 0: "it exited with status \(status)"
        case SIGXCPU: "it used up its CPU time"
        case SIGKILL: "it was killed (its memory or CPU limit, or the kernel's OOM killer)"
        case SIGSEGV, SIGBUS: "it crashed (signal \(signal))"
        case SIGABRT: "it aborted (out of memory, or a library's assertion)"
        case SIGSYS: "its sandbox stopped a system call"
        default: "it ended on signal \(signal)"
        }
    }
}
