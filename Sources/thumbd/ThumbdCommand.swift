import ArgumentParser
import Dispatch
import Foundation
import Locking
import Logging
import Synchronization
import Thumbd
import ThumbdProtocol
import VectorPages

@main
struct ThumbdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbd",
        abstract: "An HTTP image proxy and thumbnail server.",
        version: ThumbdService.version,
        subcommands: [Serve.self, Sign.self, RenderVectors.self],
        defaultSubcommand: Serve.self)
}

/// A renderer process for SVG and PDF pages: started by the server itself, never by hand.
struct RenderVectors: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-vectors",
        abstract: "Draw SVG and PDF pages for a running server (started by it; reads requests on stdin).",
        shouldDisplay: false)

    @Option(help: "Bytes the renderer's address space may ever grow by.") var maxGrowth: Int = 4 << 30
    @Option(help: "CPU seconds of the renderer's whole life.") var maxCpu: Double = 3600

    func run() throws { RendererChild.run(maxGrowth: maxGrowth, maxCPUSeconds: maxCpu) }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve images over HTTP (the default command).",
        discussion: "Flags override THUMBD_* environment variables, which override the configuration file.")

    @Option(help: "Configuration file (default: \(ConfigLoader.defaultFile), if present).") var config: String?
    @Option(help: "Address to listen on (server.host).") var host: String?
    @Option(help: "Port to listen on (server.port).") var port: String?
    @Option(help: "Folder of library images served under /img/ (library.root).") var library: String?
    @Option(name: .customLong("cache-dir"), help: "Folder of the disk cache (cache.dir).") var cacheDir: String?

    func run() throws {
        var flags: [(key: String, value: String, flag: String)] = []
        if let host { flags.append(("server.host", host, "--host")) }
        if let port { flags.append(("server.port", port, "--port")) }
        if let library { flags.append(("library.root", library, "--library")) }
        if let cacheDir { flags.append(("cache.dir", cacheDir, "--cache-dir")) }
        let loaded: ConfigLoader.Result
        do {
            loaded = try ConfigLoader.load(file: config, environment: ProcessInfo.processInfo.environment, flags: flags)
        } catch {
            FileHandle.standardError.write(Data("thumbd: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let level = loaded.config.logging.minimumLevel
        LoggingSystem.bootstrap { label in
            // The access log writes to the sink itself (AccessLog); these lines are few: unbuffered.
            var handler = SinkLogHandler(label: label, buffered: false)
            handler.logLevel = level
            return handler
        }
        atexit { LogSink.standardError.flush() }
        let logger = Logger(label: "thumbd")
        logger.info("configuration: \(loaded.file ?? "built-in defaults"), THUMBD_* variables, flags")
        for warning in loaded.warnings { logger.warning("\(warning)") }

        // The first SIGTERM or SIGINT drains; a second one exits at once. The handlers are in
        // place before the server listens: a signal between its start-up line and them would be
        // lost (an orchestrator's one SIGTERM, then a kill long after).
        let shutdown = Shutdown()
        let signals = [SIGTERM, SIGINT].map { (signo: Int32) -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler {
                if shutdown.signalled() > 1 {
                    logger.warning("second signal: exiting now")
                    Foundation.exit(1)
                }
                logger.info("signal \(signo): not accepting, draining open requests (up to \(loaded.config.server.drainSeconds) s)")
                shutdown.drain()
            }
            source.resume()
            return source
        }
        let service: ThumbdService
        do {
            service = try ThumbdService(config: loaded.config, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("thumbd: \(error)\n".utf8))
            throw ExitCode.failure
        }
        shutdown.started(service)
        service.wait()
        service.stop()
        logger.info("stopped")
        withExtendedLifetime(signals) {}
    }
}

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print TARGET with its signature appended, for a server whose security.key is configured.")

    @Argument(help: "A request target such as '/img/cat.jpg?w=300'.") var target: String
    @Option(help: "Configuration file (default: \(ConfigLoader.defaultFile), if present).") var config: String?
    @Option(help: "Refuse the URL after this long (1h, 30m, 86400) or at @UNIX-SECONDS; the signature covers it.")
    var expires: String?

    func run() throws {
        let loaded: ConfigLoader.Result
        do {
            loaded = try ConfigLoader.load(file: config, environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("thumbd: \(error)\n".utf8))
            throw ExitCode(2)
        }
        guard !loaded.config.security.key.isEmpty else {
            FileHandle.standardError.write(Data("thumbd: no security.key is configured (file or THUMBD_SECURITY_KEY)\n".utf8))
            throw ExitCode(2)
        }
        guard target.hasPrefix("/") else {
            FileHandle.standardError.write(Data("thumbd: TARGET must start with /, e.g. '/img/cat.jpg?w=300'\n".utf8))
            throw ExitCode(2)
        }
        var until: Int?
        if let expires {
            guard let at = ConfigValue.expiry(expires, now: Int(Date().timeIntervalSince1970)) else {
                FileHandle.standardError.write(Data("thumbd: --expires must be a duration such as 1h or 30m, or @UNIX-SECONDS, got '\(expires)'\n".utf8))
                throw ExitCode(2)
            }
            until = at
        }
        print(URLSigner(key: loaded.config.security.key).sign(target, expires: until))
    }
}

/// The signals thumbd was sent, and the service they drain once it has started.
final class Shutdown: Sendable {
    private struct State {
        var signals = 0
        var service: ThumbdService?
        var draining = false

        /// The service to drain now, once.
        mutating func toDrain() -> ThumbdService? {
            guard signals > 0, !draining, let service else { return nil }
            draining = true
            return service
        }
    }

    private let state = Locked(State())

    /// Counts a signal; returns how many came so far.
    func signalled() -> Int { state.withLock { s in s.signals += 1; return s.signals } }

    /// Drains the service if it has started (if not, `started` will).
    func drain() { state.withLock { $0.toDrain() }?.drain() }

    /// The service is listening: a signal that came while it started drains it now.
    func started(_ service: ThumbdService) {
        state.withLock { s in
            s.service = service
            return s.toDrain()
        }?.drain()
    }
}
