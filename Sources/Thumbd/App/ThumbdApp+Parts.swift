import Clocks
import HTTPServer
import Imaging
import Logging
import ThumbdCore
import ThumbdProtocol
import VectorPages

/// The parts `ThumbdApp.init` builds from the configuration, one function each: pure
/// construction, nothing asked of a store or started.
extension ThumbdApp {
    static func transformParser(_ config: ThumbdConfig) -> TransformParser {
        TransformParser(presets: config.presets, maxDimension: config.limits.maxDimension,
                        defaultQuality: config.output.quality, defaultProgressive: config.output.progressive,
                        watermark: config.watermark.value, watermarkOptional: config.watermark.optional,
                        avifEffort: config.output.avifEffort,
                        autoQuality: AutoQuality(target: config.output.autoQualityTarget, floor: config.output.autoQualityMin,
                                                 ceiling: config.output.autoQualityMax, encodes: config.output.autoQualityEncodes),
                        autoQualityByDefault: config.output.autoQuality)
    }

    static func thumbnailLimits(_ config: ThumbdConfig) -> ThumbnailService.Limits {
        ThumbnailService.Limits(maxSourceBytes: config.limits.maxSourceBytes, maxSourcePixels: config.limits.maxSourcePixels,
                                maxDimension: config.limits.maxDimension, maxFrames: config.limits.maxFrames,
                                sharesDecodes: config.output.sharedDecode, videoMaxDuration: config.limits.videoMaxDuration,
                                videoMaxDecodeSeconds: config.limits.videoDecodeSeconds)
    }

    /// The allowed origins' originals, kept in `kept`; nil when no origin is allowed.
    static func remoteOriginals(_ config: ThumbdConfig, kept: OriginalStore, metrics: ThumbdMetrics, clock: any MonotonicClock,
                                logger: Logger) -> RemoteOriginals? {
        guard !config.origins.allow.isEmpty else { return nil }
        let fetcher = OriginFetcher(allow: OriginAllowList(config.origins.allow), allowPrivate: config.origins.allowPrivate,
                                    maxRedirects: config.origins.maxRedirects, connectTimeout: config.origins.connectTimeout,
                                    totalTimeout: config.origins.timeout, minRate: config.origins.minRate,
                                    maxBytes: config.limits.maxSourceBytes, clock: clock)
        return RemoteOriginals(store: HTTPOrigin(fetcher: fetcher, metrics: metrics), originals: kept, ttl: config.origins.ttl,
                               clock: clock, logger: logger)
    }

    /// The library `root` names: a folder, or a bucket whose originals are kept in `kept`.
    static func libraryBackend(_ root: LibraryRoot, config: ThumbdConfig, memory: MemoryPlan, fields: ImageFields, kept: OriginalStore,
                               pool: WorkerPool, metrics: ThumbdMetrics, reading: FactReading, clock: any MonotonicClock,
                               logger: Logger) -> any LibraryBackend {
        switch root {
        case .folder(let folder):
            FolderLibrary(library: folder, fields: fields.headers(for:), smallOriginals: memory.smallOriginals, clock: clock,
                          reading: reading)
        case .bucket(let location):
            S3Library(location: location, client: config.s3Client(for: location, clock: clock).recording(to: metrics),
                      ttl: config.library.s3.ttl, maxSourceBytes: config.limits.maxSourceBytes,
                      listPageSize: config.library.s3.listPageSize, store: kept, pool: pool, clock: clock, logger: logger,
                      reading: reading)
        }
    }

    /// The renderers of SVG and PDF this configuration asks for: `thumbd render-vectors` of
    /// this executable (`limits.renderer_command` in tests), nil when there is none.
    static func vectorSources(_ config: ThumbdConfig, clock: any MonotonicClock, logger: Logger) -> VectorSources? {
        guard let command = config.limits.rendererCommand ?? VectorRenderer.defaultCommand() else {
            logger.warning("no thumbd executable to draw SVG and PDF with: they are answered 415")
            return nil
        }
        let renderer = VectorRenderer(command: command, limits: .init(seconds: config.limits.vectorSeconds,
                                                                      renderers: config.limits.vectorRenderers),
                                      clock: clock, reportSandbox: { sandboxed in
            if !sandboxed {
                logger.warning("SVG and PDF renderers run without their seccomp filter (the kernel refused it): their rlimits still hold")
            }
        })
        return VectorSources(renderer: renderer, maxPixels: config.limits.maxSourcePixels)
    }
}
