import Clocks
import CSystem
import Glibc
import Imaging
import Locking
import WireCoding

/// SVG and PDF pages read and drawn in renderer processes (`RendererChild`, `thumbd
/// render-vectors`), never in the server's: a document that runs away (a blur that draws for
/// seconds in one call, a parse that grows without end) costs its own process, which is
/// killed at its deadline (`limits.vector_seconds`), when nobody waits for it any more, or
/// by its own CPU and memory limits; the server's memory and CPU are untouched. Warm
/// renderers are kept (`limits.vector_renderers`) so an ordinary SVG costs no process start;
/// documents drawn at once beyond them get renderers of their own, kept as spares while the
/// work lasts and let go once they have waited 2 s, when the worker pool next goes idle
/// (`retireSpares`), so a burst does not start a process per document. Blocking: worker
/// threads call it.
public final class VectorRenderer: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Wall-clock seconds one header or drawing may take (and CPU seconds it may use).
        public var seconds: Double
        /// Renderers kept warm between documents.
        public var renderers: Int
        /// Address space a header read may grow by: a header needs little.
        public var headerMemory: Int

        public init(seconds: Double = 10, renderers: Int = 1, headerMemory: Int = 128 << 20) {
            self.seconds = seconds
            self.renderers = renderers
            self.headerMemory = headerMemory
        }
    }

    /// What the renderers did so far, for the metrics.
    public struct Statistics: Sendable, Equatable {
        public var started = 0
        /// Requests answered (a header, a drawing, or the document's own refusal).
        public var answered = 0
        /// Killed at their deadline.
        public var timedOut = 0
        /// Killed because nobody waited any more.
        public var stopped = 0
        /// Died at work: a limit, a crash.
        public var died = 0
    }

    public let command: [String]
    public let limits: Limits
    private let counts = Locked(Statistics())
    private let clock: any MonotonicClock
    /// Renderers waiting for a document, each with when it came back (newest last).
    private let idle = Locked<(processes: [(process: RendererProcess, since: Double)], closed: Bool)>(([], false))
    /// Told once whether the renderers run sandboxed (a log line).
    private let reportSandbox: @Sendable (Bool) -> Void
    private let reported = Locked(false)

    /// How many documents one renderer draws before a fresh one takes over (what its heap
    /// kept of them goes with it).
    static let documentsPerProcess = 200
    /// What reading a document of `bytes` may take beyond its drawing: an SVG's tree, a PDF's
    /// objects, a few times its size.
    public static func documentMemory(_ bytes: Int) -> Int { bytes * 8 }

    /// A renderer's own start: it loads libvips, librsvg, poppler and the fonts.
    static let startTimeout = 30.0
    /// What a renderer's address space may ever grow by (each document's own bound is set
    /// lower, from its reservation); a compromised renderer cannot raise either.
    static let lifetimeGrowth = 4 << 30

    /// The renderer's command line: the command and its lifetime limits.
    var commandLine: [String] {
        command + ["--max-growth", String(Self.lifetimeGrowth),
                   "--max-cpu", String(Int((Double(Self.documentsPerProcess) * limits.seconds).rounded(.up)) + 60)]
    }

    /// The variables a renderer gets: what finding fonts and writing text needs, none of the
    /// server's (`THUMBD_*` keys and secrets among them).
    static func environment(from variables: [String]) -> [String] {
        let names: Set<String> = ["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
                                  "XDG_DATA_DIRS", "FONTCONFIG_FILE", "FONTCONFIG_PATH"]
        return variables.filter { variable in
            guard let equals = variable.firstIndex(of: "=") else { return false }
            let name = String(variable[..<equals])
            return names.contains(name) || name.hasPrefix("LC_")
        }
    }

    /// This process's environment, as "NAME=value" lines.
    static var processEnvironment: [String] {
        var lines: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            lines.append(String(cString: pointer))
            entry += 1
        }
        return lines
    }

    public init(command: [String], limits: Limits = Limits(), clock: any MonotonicClock = SystemClock(),
                reportSandbox: @escaping @Sendable (Bool) -> Void = { _ in }) {
        csys_ignore_sigpipe()
        // A renderer runs as the server's user: it must not read the server's memory or
        // environment under /proc, nor trace it.
        csys_set_undumpable()
        self.command = command
        self.limits = limits
        self.clock = clock
        self.reportSandbox = reportSandbox
    }

    deinit { close() }

    /// The command of this executable's renderer: itself when it is `thumbd`, else a `thumbd`
    /// beside it (a test runner's build folder); nil when there is none.
    public static func defaultCommand() -> [String]? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if exe.hasSuffix("/thumbd") { return [exe, "render-vectors"] }
        let sibling = folder + "/thumbd"
        return access(sibling, X_OK) == 0 ? [sibling, "render-vectors"] : nil
    }

    /// The header of `page` (from 1): the nominal size, the pages, the loader. `stop` says
    /// when nobody wants it any more.
    public func header(of document: [UInt8], page: Int, stop: StopCheck? = nil) throws(ImagingError) -> ImageHeader {
        let reply = try exchange(RenderRequest(operation: .header, page: page, document: document),
                                 memoryBytes: limits.headerMemory + Self.documentMemory(document.count), maxBody: 1 << 16, stop: stop)
        return reply.header
    }

    /// `page` drawn at `scale` of its nominal size, as an uncompressed TIFF, with the size the
    /// renderer drew it at: refused (`tooManyPixels`) past `maxPixels` before it is drawn.
    /// `memoryBytes`: what the renderer's address space may grow by meanwhile.
    public func draw(_ document: [UInt8], page: Int, scale: Double, maxPixels: Int, memoryBytes: Int,
                     stop: StopCheck? = nil) throws(ImagingError) -> (tiff: [UInt8], width: Int, height: Int) {
        let request = RenderRequest(operation: .draw, page: page, scale: scale, maxPixels: maxPixels, document: document)
        let reply = try exchange(request, memoryBytes: memoryBytes, maxBody: maxPixels * 4 + (1 << 20), stop: stop)
        return (reply.body, reply.width, reply.height)
    }

    /// What a renderer's sandbox refused of what it tried (`csys_sandbox_report`): the tests'.
    public func sandboxReport() throws(ImagingError) -> String {
        let reply = try exchange(RenderRequest(operation: .checkSandbox, page: 1, document: []), memoryBytes: limits.headerMemory,
                                 maxBody: 1 << 12, stop: nil)
        return String(decoding: reply.body, as: UTF8.self)
    }

    /// Ends every renderer kept: a service that stops.
    public func close() {
        let kept = idle.withLock { state -> [RendererProcess] in
            state.closed = true
            defer { state.processes = [] }
            return state.processes.map(\.process)
        }
        for process in kept { process.retire() }
    }

    /// Renderers kept warm now.
    public var warm: Int { idle.withLock { $0.processes.count } }

    public var statistics: Statistics { counts.withLock { $0 } }

    private func count(_ what: WritableKeyPath<Statistics, Int>) { counts.withLock { $0[keyPath: what] += 1 } }

    private func exchange(_ request: RenderRequest, memoryBytes: Int, maxBody: Int, stop: StopCheck?) throws(ImagingError) -> RenderReply {
        // A renderer that went while idle is replaced once.
        for attempt in 0..<2 {
            let process = try checkout()
            let deadline = clock.now() + limits.seconds
            switch process.exchange(request, cpuSeconds: limits.seconds, memoryBytes: memoryBytes, deadline: deadline, clock: clock,
                                    stop: stop, maxBody: maxBody) {
            case .success(let reply):
                checkin(process)
                count(\.answered)
                return try Self.result(reply, of: request)
            case .failure(.gone) where attempt == 0:
                continue
            case .failure(let failure):
                throw failed(failure)
            }
        }
        throw .undecodable("no renderer could take the document")
    }

    private func failed(_ failure: RendererProcess.Failure) -> ImagingError {
        switch failure {
        case .timedOut:
            count(\.timedOut)
            return .undecodable("drawing it took longer than \(DecimalText.format(limits.seconds)) s, the limit (limits.vector_seconds)")
        case .stopped:
            count(\.stopped)
            return .cancelled
        case .died(let why):
            count(\.died)
            return .undecodable("its renderer stopped: \(why)")
        case .gone, .garbled:
            count(\.died)
            return .undecodable("its renderer stopped answering")
        case .cannotStart(let why):
            return .rendererUnavailable(why)
        }
    }

    /// A reply as the caller's result: the header or drawing, or the document's refusal.
    static func result(_ reply: RenderReply, of request: RenderRequest) throws(ImagingError) -> RenderReply {
        switch reply.outcome {
        case .ok: return reply
        case .unsupported: throw .unsupportedFormat
        case .tooManyPixels: throw .tooManyPixels(width: reply.width, height: reply.height, limit: request.maxPixels)
        case .noSuchPage:
            throw .badParameter(name: "page", detail: "page \(request.page) is past the source's \(reply.pages) page(s)")
        case .undecodable, .ready: throw .undecodable(message(reply.body))
        }
    }

    /// A renderer's words as a client may read them: one line of printable ASCII, at most 200
    /// characters (a renderer a document took over could say anything).
    static func message(_ body: [UInt8]) -> String {
        let printable = body.prefix(200).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : " " }
        let text = String(printable.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        return text.isEmpty ? "the document cannot be read" : text
    }

    private func checkout() throws(ImagingError) -> RendererProcess {
        if let kept = idle.withLock({ $0.processes.popLast() }) { return kept.process }
        do {
            let process = try RendererProcess.start(commandLine, environment: Self.environment(from: Self.processEnvironment),
                                                    timeout: Self.startTimeout)
            count(\.started)
            let first = reported.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { reportSandbox(process.sandboxed) }
            return process
        } catch {
            throw failed(error)
        }
    }

    private func checkin(_ process: RendererProcess) {
        let now = clock.now()
        let kept = process.answered < Self.documentsPerProcess && idle.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.processes.append((process, now))
            return true
        }
        if !kept { process.retire() }
    }

    /// Lets go of the renderers kept beyond `limits.renderers` (the spares of a burst) that
    /// have waited `spareSeconds` for a document: the worker pool calls it when it goes idle,
    /// so a burst's spares stay while it lasts, and go at the next idle moment after it.
    public func retireSpares() {
        let now = clock.now()
        let spares = idle.withLock { state -> [RendererProcess] in
            var extra = state.processes.count - limits.renderers
            var retired: [RendererProcess] = []
            // The longest idle first: they come back first and are at the front.
            while extra > 0, let oldest = state.processes.first, now - oldest.since >= Self.spareSeconds {
                retired.append(state.processes.removeFirst().process)
                extra -= 1
            }
            return retired
        }
        for process in spares { process.retire() }
    }

    /// How long a spare renderer waits for another document before it may be let go.
    static let spareSeconds = 2.0
}
