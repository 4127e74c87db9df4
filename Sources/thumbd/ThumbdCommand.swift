import ArgumentParser
import Dispatch
import Foundation
import Logging
import Thumbd

@main
struct ThumbdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbd",
        abstract: "An HTTP image proxy and thumbnail server.",
        version: ThumbdService.version,
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self)
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve images over HTTP (the default command).")

    @Option(help: "Address to listen on.") var host: String?
    @Option(help: "Port to listen on.") var port: Int?
    @Option(help: "Folder of library images served under /img/.") var library: String?
    @Option(name: .customLong("cache-dir"), help: "Folder of the disk cache.") var cacheDir: String?

    func run() throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var config = ThumbdConfig()
        if let host { config.server.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535, got \(port)") }
            config.server.port = port
        }
        if let library { config.library.root = library }
        if let cacheDir { config.cache.dir = cacheDir }

        let service: ThumbdService
        do {
            service = try ThumbdService(config: config)
        } catch {
            FileHandle.standardError.write(Data("thumbd: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let signals = [SIGTERM, SIGINT].map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler { service.drain() }
            source.resume()
            return source
        }
        service.wait()
        withExtendedLifetime(signals) {}
    }
}
