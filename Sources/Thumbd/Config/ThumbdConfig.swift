import Clocks
import HTTP
import HTTPServer
import Faces
import Imaging
import Logging
import ThumbdCore
import ThumbdProtocol

/// Every setting thumbd has, with its default (docs/configuration.md). Sections mirror the config file's.
public struct ThumbdConfig: Sendable, Equatable {
    public struct Server: Sendable, Equatable {
        public var host = ServerConfiguration.Defaults.host
        public var port = ServerConfiguration.Defaults.port
        public var eventLoops = ProcessInfoLite.activeProcessorCount
        public var maxConnections = ServerConfiguration.Defaults.maxConnections
        public var headerTimeout = ServerConfiguration.Defaults.headerTimeout
        public var idleTimeout = ServerConfiguration.Defaults.idleTimeout
        public var responseTimeout = ServerConfiguration.Defaults.responseTimeout
        public var drainSeconds = 10.0
        /// Balancers whose `X-Forwarded-For` names the client in the access log (IPs or CIDRs).
        public var trustedProxies: [String] = []
    }

    public struct Library: Sendable, Equatable {
        /// A folder, or `s3://BUCKET/PREFIX` for an S3 bucket.
        public var root = "./images"
        public var demo = true
        /// Where the demo set finds its photograph of people and its video clip
        /// (scripts/demo-media.sh); relative to the working directory or absolute.
        public var demoMedia = DemoMedia.defaultFolder
        public var s3 = S3()

        /// The bucket when `root` names one.
        public var bucket: S3Location? { S3Location(parsing: root) }

        /// The store of an S3 library. The keys never appear in logs, metrics or problems.
        public struct S3: Sendable, Equatable, CustomStringConvertible {
            /// Empty: AWS S3 in `region`.
            public var endpoint = ""
            public var region = S3Client.Defaults.region
            /// The bucket in the path rather than the host name; nil: path style when an
            /// endpoint is set.
            public var pathStyle: Bool?
            /// How long a version the store gave (and the listing) is used without asking again.
            public var ttl = S3Library.Defaults.ttl
            public var accessKey = ""
            public var secretKey = ""
            /// Keys per ListObjectsV2 page: the store's maximum. Not a configuration key; tests
            /// set it low to list several pages.
            var listPageSize = S3Client.Defaults.listPageSize

            public var description: String {
                "S3(endpoint: \(endpoint), region: \(region), pathStyle: \(pathStyle.map(String.init) ?? "auto"), ttl: \(ttl), keys hidden)"
            }
        }
    }

    public struct Cache: Sendable, Equatable {
        public var dir = "./cache"
        /// The memory tier's bound; nil (`auto`): a share of `limits.memory_bytes` (`MemoryPlan`).
        public var memoryBytes: Int?
        /// The memory tier of originals fetched from elsewhere (remote origins), apart from
        /// the thumbnails' `memoryBytes`; on disk they share the disk tier. nil: `auto`.
        public var originalsMemoryBytes: Int?
        public var diskBytes = 2 << 30
        public var shared = Shared()

        /// The tier every replica shares, in an object store.
        public struct Shared: Sendable, Equatable {
            /// `s3://BUCKET/PREFIX`; empty: no shared tier.
            public var root = ""
            /// How long a request to the store may take; past it the tier is skipped.
            public var timeout = SharedStore.Defaults.timeout
            /// How often each replica looks for purges published by the others.
            public var purgeInterval = SharedPurges.Defaults.interval
            /// The store, where it differs from `library.s3`'s (empty or nil: the same).
            public var s3 = S3Override()

            /// The bucket when `root` names one.
            public var bucket: S3Location? { S3Location(parsing: root) }
        }

        /// Settings of another store than the library's; each empty (nil) one is the library's.
        public struct S3Override: Sendable, Equatable, CustomStringConvertible {
            public var endpoint = ""
            public var region = ""
            public var pathStyle: Bool?
            public var accessKey = ""
            public var secretKey = ""

            public var description: String {
                "S3(endpoint: \(endpoint), region: \(region), pathStyle: \(pathStyle.map(String.init) ?? "library's"), keys hidden)"
            }
        }
    }

    public struct Output: Sendable, Equatable {
        public var quality = OutputFormat.defaultQuality
        /// `q=auto` where a request gives no `q` (off: `quality`).
        public var autoQuality = false
        /// What `q=auto` keeps each output within (1 - MS-SSIM on luma), and its bounds.
        public var autoQualityTarget = AutoQuality.defaultTarget
        public var autoQualityMin = AutoQuality.defaultFloor
        public var autoQualityMax = AutoQuality.defaultCeiling
        /// At most this many encodings per thumbnail.
        public var autoQualityEncodes = AutoQuality.defaultEncodes
        /// The AVIF encoder's effort, 0 (fastest) ... 9; part of AVIF outputs' keys when not 1.
        public var avifEffort = OutputFormat.defaultAVIFEffort
        /// Sizes of one source queued together made from one decode (less CPU; their ETags
        /// differ from the same sizes made alone, so off by default).
        public var sharedDecode = false
        public var cacheControl = "public, max-age=86400"
        /// Directives for shared caches, added to `cacheControl` when set (seconds; 0: not sent).
        public var sMaxAge = 0.0
        public var staleWhileRevalidate = 0.0
        public var staleIfError = 0.0
        /// Progressive JPEG and interlaced PNG when a request gives no `pr`.
        public var progressive = false
        /// `Accept-CH` on image responses too (the gallery page always sends it).
        public var clientHints = false
    }

    public struct Limits: Sendable, Equatable {
        /// Largest `w` or `h` (after `dpr`).
        public var maxDimension = 4096
        /// Sources over this many pixels are refused (422) from their header alone.
        public var maxSourcePixels = 50_000_000
        /// Sources over this many bytes are refused (413) before they are read.
        public var maxSourceBytes = 64 << 20
        /// Transforms running at once.
        public var workers = ProcessInfoLite.activeProcessorCount
        /// Transforms waiting for a worker; past it, 503 with Retry-After.
        public var queue = 64
        /// Frames an animation (`anim=1`) may have (422 past it).
        public var maxFrames = 300
        /// Videos whose container says they last longer are refused (422).
        public var videoMaxDuration: Double = 4 * 3600
        /// Wall-clock seconds one still of a video (a poster, a preview's frames) may take to
        /// decode (422 past it): a stream built to be slow cannot hold a worker longer.
        public var videoDecodeSeconds: Double = 20
        /// Working memory the transforms running at once may hold together (their estimates,
        /// `WorkingMemory`); past it a transform waits for others to finish, and one whose
        /// estimate alone is over it is refused. 0: no bound. nil (`auto`): what
        /// `limits.memory_bytes` leaves (`MemoryPlan`).
        public var transformMemoryBytes: Int?
        /// The memory the whole process may use; nil (`auto`): the container's cgroup limit when
        /// below the machine's memory, else the machine's (`SystemMemory`).
        public var memoryBytes: Int?
        /// Wall-clock (and CPU) seconds an SVG or PDF page may take to read or draw in its
        /// renderer process; past them it is killed (422).
        public var vectorSeconds = 10.0
        /// Renderer processes kept warm between SVG and PDF documents.
        public var vectorRenderers = 1
        /// The renderer's command; nil: this executable's `render-vectors`. Not a configuration
        /// key (tests and tools point it at a build).
        public var rendererCommand: [String]?
    }

    public struct Origins: Sendable, Equatable {
        /// Hosts remote images may come from (`example.com`, `*.example.com`, `*`); empty: /proxy is off.
        public var allow: [String] = []
        /// Allow loopback, private, link-local... addresses (tests use it to reach 127.0.0.1).
        public var allowPrivate = false
        public var maxRedirects = 5
        public var connectTimeout = 5.0
        /// The whole deadline of a fetch (a streamed original's: until its head goes on), for
        /// origins and the S3 library alike.
        public var timeout = 10.0
        /// Bytes a second a body must keep over any 5 s once the answer began; 0: none.
        public var minRate = TransferLimits.Defaults.minRate
        /// The store's own time a streamed original's body may take after its head went on.
        public var streamTimeout = TransferLimits.Defaults.streamTimeout
        /// How long a fetched original is used before it is revalidated.
        public var ttl = 3600.0
    }

    /// A watermark drawn on every output (`wm` names another per request).
    public struct Watermark: Sendable, Equatable {
        /// A library image (PNG with alpha); empty: none.
        public var image = ""
        public var position = ThumbdProtocol.Watermark.defaultPosition
        public var scale = ThumbdProtocol.Watermark.defaultScale
        public var opacity = ThumbdProtocol.Watermark.defaultOpacity
        public var padding = ThumbdProtocol.Watermark.defaultPadding
        /// Whether `wm=none` in a request turns it off.
        public var optional = false

        /// The default watermark of every transform; nil without an image.
        var value: ThumbdProtocol.Watermark? {
            image.isEmpty ? nil : ThumbdProtocol.Watermark(path: image, position: position, scale: scale, opacity: opacity, padding: padding)
        }
    }

    public struct Security: Sendable, Equatable {
        /// When set, every /img, /proxy and /v1/info request must be signed with it (`s`).
        public var key = ""
    }

    /// The CDN in front of the replicas: the tags every cacheable answer carries, and the
    /// purge each `POST /v1/purge` asks of it (docs/deployment.md, "A CDN in front").
    public struct CDN: Sendable, Equatable {
        /// none (no tags, no purge), varnish, fastly or cloudflare.
        public var kind = CDNKind.none
        /// Where purges go: a Varnish's address; for Fastly and Cloudflare their API, when not theirs.
        public var purgeURL = ""
        /// Fastly's service ID, or Cloudflare's zone ID.
        public var service = ""
        /// Fastly's API token, or Cloudflare's (a secret: prefer THUMBD_CDN_TOKEN).
        public var token = ""
        public var purgeAttempts = 3
        public var purgeTimeout = 5.0

        /// Where purges go: `purgeURL`, or the service's API.
        var endpoint: String { purgeURL.isEmpty ? kind.defaultEndpoint ?? "" : purgeURL }
    }

    public struct Admin: Sendable, Equatable {
        /// The bearer token of `POST /v1/purge`; empty: the endpoint does not exist.
        public var token = ""
    }

    /// The Lorem Picsum-compatible routes over the library.
    public struct Picsum: Sendable, Equatable {
        public var enabled = true
    }

    /// The face detector of `crop=face`, `redact=face` and the info's `faces`.
    public struct Faces: Sendable, Equatable {
        public enum Detector: String, Sendable, CaseIterable {
            /// YuNet, OpenCV's CNN (`model`).
            case cnn
            /// OpenCV's Haar cascades (`cascades`), as builds before the CNN.
            case haar
            /// No faces are found.
            case none
        }

        public var detector = Detector.cnn
        /// YuNet's ONNX file, relative to the working directory or absolute.
        public var model = FaceDetector.defaultModelFile
        /// The lowest score a face the CNN finds is kept at.
        public var minScore = FaceDetector.defaultMinScore
        /// The folder of OpenCV's Haar cascades; empty with `haar`: no faces are found.
        public var cascades = FaceDetector.defaultCascades
    }

    public struct Logging: Sendable, Equatable {
        /// trace, debug, info, notice, warning, error or critical.
        public var level = "info"
        /// One line per request (client, method, target, status, bytes, duration, cache tier).
        public var access = true

        /// `level` as swift-log's (the key's values are checked when loaded).
        public var minimumLevel: Logger.Level { Logger.Level(rawValue: level) ?? .info }
    }

    public var server = Server()
    public var library = Library()
    public var cache = Cache()
    public var output = Output()
    public var limits = Limits()
    public var logging = Logging()
    public var security = Security()
    public var origins = Origins()
    public var cdn = CDN()
    public var admin = Admin()
    public var watermark = Watermark()
    public var picsum = Picsum()
    public var faces = Faces()
    /// Named parameter sets for `p=`: name -> query string such as `w=300&h=300&fit=cover`.
    public var presets: [String: String] = [:]

    public init() {}

    var serverConfiguration: ServerConfiguration {
        ServerConfiguration(host: server.host, port: server.port, eventLoops: server.eventLoops,
                            maxConnections: server.maxConnections, headerTimeout: server.headerTimeout,
                            idleTimeout: server.idleTimeout, responseTimeout: server.responseTimeout,
                            trustedProxies: server.trustedProxies.compactMap(IPPrefix.init))
    }
}

extension ThumbdConfig {
    /// The shared tier's store: `cache.shared.s3`'s settings, each empty one `library.s3`'s.
    var sharedStoreSettings: Library.S3 {
        var s3 = library.s3
        let override = cache.shared.s3
        if !override.endpoint.isEmpty {
            s3.endpoint = override.endpoint
            s3.pathStyle = nil
        }
        if !override.region.isEmpty { s3.region = override.region }
        if let pathStyle = override.pathStyle { s3.pathStyle = pathStyle }
        if !override.accessKey.isEmpty { s3.accessKey = override.accessKey }
        if !override.secretKey.isEmpty { s3.secretKey = override.secretKey }
        return s3
    }

    /// The shared tier's client (nil without `cache.shared.root`), with its own timeout.
    func sharedClient(clock: any MonotonicClock = SystemClock()) -> S3Client? {
        guard let location = cache.shared.bucket else { return nil }
        let s3 = sharedStoreSettings
        return S3Client(location: location, endpoint: S3Endpoint(endpoint: s3.endpoint, region: s3.region, pathStyle: s3.pathStyle)!,
                        region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey,
                        connectTimeout: min(origins.connectTimeout, cache.shared.timeout),
                        transfer: transferLimits(timeout: cache.shared.timeout), clock: clock)
    }

    /// The bounds of every read from an origin, the S3 library (`origins.timeout`) or the
    /// shared tier (`cache.shared.timeout`): that deadline, `origins.min_rate` and
    /// `origins.stream_timeout`.
    func transferLimits(timeout: Double) -> TransferLimits {
        TransferLimits(timeout: timeout, minRate: origins.minRate, streamTimeout: origins.streamTimeout)
    }

    /// The S3 client this configuration describes for `location` (the endpoint was checked
    /// when the configuration was loaded); S3 requests use the origins' timeouts.
    func s3Client(for location: S3Location, clock: any MonotonicClock = SystemClock()) -> S3Client {
        let s3 = library.s3
        return S3Client(location: location, endpoint: S3Endpoint(endpoint: s3.endpoint, region: s3.region, pathStyle: s3.pathStyle)!,
                        region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey,
                        connectTimeout: origins.connectTimeout, transfer: transferLimits(timeout: origins.timeout), clock: clock)
    }
}
