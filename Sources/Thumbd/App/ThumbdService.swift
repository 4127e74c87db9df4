import Clocks
import CSystem
import HTTP
import HTTPServer
import Faces
import Imaging
import Logging
import ThumbdCore

/// thumbd assembled from a configuration: the library, the app and its HTTP server.
public final class ThumbdService: Sendable {
    public let config: ThumbdConfig
    public let app: ThumbdApp
    public let server: HTTPServer

    public static let version = "0.1.0"

    /// `clock` measures every timeout and freshness window (tests pass a manual one); `system`
    /// is the memory the machine and the container allow (`limits.memory_bytes: auto`).
    public init(config: ThumbdConfig, clock: any MonotonicClock = SystemClock(), wallClock: any WallClock = SystemWallClock(),
                system: SystemMemory = .read(), logger: Logger = Logger(label: "thumbd")) throws {
        self.config = config
        let memory = try MemoryPlan.make(config: config, system: system)
        // Before the worker threads exist, so they share two malloc arenas. (Not under
        // ThreadSanitizer, whose allocator glibc's arena limit trips over at thread exit.)
        #if !TSAN
        csys_limit_malloc_arenas(2)
        csys_set_mmap_threshold(1 << 20)
        #endif
        DecoderScratch.capacity = memory.decoderScratch
        // A bucket gets no demo set.
        if config.library.demo, config.library.bucket == nil {
            // A library that cannot be written (a read-only mount) is served as it is.
            do {
                let written = try DemoLibrary.populateIfEmpty(root: config.library.root,
                                                              media: DemoMedia(folder: config.library.demoMedia))
                if written > 0 { logger.info("wrote \(written) demo images to \(config.library.root) (library.demo: false turns this off)") }
            } catch {
                logger.warning("could not write the demo images to \(config.library.root) (\(error)); serving it as it is")
            }
        }
        let root: LibraryRoot
        if let bucket = config.library.bucket {
            try S3Library.checkAccess(bucket, client: config.s3Client(for: bucket), logger: logger)
            root = .bucket(bucket)
        } else {
            root = .folder(try ImageLibrary(root: config.library.root))
        }
        let faces = try config.faces.makeDetector()
        let gauges = ServerGauges()
        app = ThumbdApp(config: config, memory: memory, library: root, gauges: gauges, faces: faces, clock: clock,
                        wallClock: wallClock, logger: logger)
        app.start()
        // Access lines are at level info: a higher logging.level leaves them out, as it did
        // when they went through swift-log.
        let logsAccess = config.logging.access && config.logging.minimumLevel <= .info
        server = try HTTPServer(configuration: config.serverConfiguration, handler: app,
                                observer: ExchangeLog(metrics: app.metrics, accessLog: logsAccess ? AccessLog() : nil),
                                gauges: gauges, clock: clock)
        if config.security.key.isEmpty {
            logger.warning("URL signing is off: /img, /proxy and /v1/info accept unsigned requests (set security.key to require signatures)")
        } else {
            logger.info("URL signing is on: /img, /proxy and /v1/info require a valid s")
        }
        let vectorGuarded = ProcessGuards.orcGuarded
        logger.info("thumbd \(Self.version) listening on \(config.server.host):\(server.port)",
                    metadata: ["library": "\(config.library.root)", "loops": "\(config.server.eventLoops)",
                               "workers": "\(config.limits.workers)", "queue": "\(config.limits.queue)",
                               "cache.dir": "\(config.cache.dir)", "cache.disk_bytes": "\(config.cache.diskBytes)",
                               "libvips": "\(Vips.version)", "libvips.vector": vectorGuarded ? "guarded" : "off"])
        if !vectorGuarded {
            logger.warning("libvips' vector code is off: liborc's compile and free are not behind thumbd's lock (orcguard.c), so transforms are slower")
        }
        logger.info("memory: \(memory)")
    }

    public var port: Int { server.port }

    /// Graceful stop: /health turns 503, no new connections, open exchanges finish.
    public func drain() {
        app.beginDraining()
        server.drain(seconds: config.server.drainSeconds)
    }

    public func stop() {
        app.purgeFollower?.stop()
        server.stop()
        app.pool.stop()
        app.thumbnails.stop()
        app.transfers?.stop()
        app.vectors?.renderer.close()
    }

    public func wait() { server.wait() }
}
