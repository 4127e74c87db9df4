import Cache
import CoreMetrics
import Imaging
import Locking
import Metrics
import Prometheus
import Synchronization
import ThumbdCore
import ThumbdProtocol

/// thumbd's metrics, through swift-metrics with a Prometheus factory of its own (no global
/// bootstrap, so several servers can live in one process, as in tests): what the domain tells
/// (`ServiceMetrics`, `OriginMetrics`, `S3Metrics`) and the exchanges as they finish; state (queue, connections, cache
/// sizes) is read at scrape (`MetricsRoute`).
public final class ThumbdMetrics: ServiceMetrics, OriginMetrics, S3Metrics {
    package let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let requestMetrics: [RouteMetrics]
    private let transforms = Locked<[String: CoreMetrics.Counter]>([:])
    private let transformDurations = Locked<[String: CoreMetrics.Timer]>([:])
    /// Counters fed from totals kept elsewhere: the last total reported, by name.
    private let reported = Locked<[String: Int]>([:])
    private let counters = Locked<[String: CoreMetrics.Counter]>([:])
    private let gauges = Locked<[String: CoreMetrics.Gauge]>([:])

    package static let requestBuckets: [Duration] = [.microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(5),
                                             .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                             .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)]
    package static let transformBuckets: [Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                               .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                                               .seconds(2.5), .seconds(5), .seconds(10)]

    /// `routes`: the route labels requests are counted under, in the order of the indexes
    /// `recordRequest` receives.
    public init(routes: [String]) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            "thumbd_http_request_duration_seconds": Self.requestBuckets,
            "thumbd_transform_duration_seconds": Self.transformBuckets,
            "thumbd_origin_fetch_duration_seconds": Self.transformBuckets,
            "thumbd_s3_request_duration_seconds": Self.transformBuckets,
        ]
        self.factory = factory
        requestMetrics = routes.map { RouteMetrics(label: $0, factory: factory) }
    }

    private static func cached<M>(_ box: borrowing Locked<[String: M]>, _ key: String, _ make: () -> M) -> M {
        box.withLock { map in
            if let m = map[key] { return m }
            let m = make()
            map[key] = m
            return m
        }
    }

    /// One finished HTTP exchange. Runs on the event loop for every request, so its metrics
    /// are found by integer index, not by a label string built and hashed each time.
    package func recordRequest(routeIndex: Int, status: Int, bodyBytes: Int64, seconds: Double) {
        let metrics = requestMetrics[routeIndex]
        metrics.counter(status: status).increment()
        metrics.duration.recordNanoseconds(Int64(seconds * 1e9))
        if bodyBytes > 0 { metrics.bytes.increment(by: Int(bodyBytes)) }
    }

    /// One transform run to the end (ok or error), with its output format.
    package func transformed(_ outputFormat: OutputFormat?, ok: Bool, seconds: Double) {
        let format = outputFormat?.rawValue ?? "auto"
        Self.cached(transforms, format + (ok ? " ok" : " error")) {
            CoreMetrics.Counter(label: "thumbd_transforms_total", dimensions: [("format", format), ("result", ok ? "ok" : "error")], factory: factory)
        }.increment()
        Self.cached(transformDurations, format) {
            CoreMetrics.Timer(label: "thumbd_transform_duration_seconds", dimensions: [("format", format)], factory: factory)
        }.recordNanoseconds(Int64(seconds * 1e9))
    }

    private let autoQualities = Locked<[String: CoreMetrics.Counter]>([:])

    /// One `q=auto` search: counted by format and whether it met its target, with the
    /// qualities chosen and the encodings made summed (their averages are the sums over the
    /// count).
    package func autoQuality(_ outputFormat: OutputFormat, _ choice: QualitySearch.Choice) {
        let format = outputFormat.rawValue, met = choice.met ? "true" : "false"
        Self.cached(autoQualities, format + " " + met) {
            CoreMetrics.Counter(label: "thumbd_auto_quality_total", dimensions: [("format", format), ("met", met)], factory: factory)
        }.increment()
        Self.cached(autoQualities, format + " quality") {
            CoreMetrics.Counter(label: "thumbd_auto_quality_chosen_sum", dimensions: [("format", format)], factory: factory)
        }.increment(by: Int64(choice.quality))
        Self.cached(autoQualities, format + " encodes") {
            CoreMetrics.Counter(label: "thumbd_auto_quality_encodes_total", dimensions: [("format", format)], factory: factory)
        }.increment(by: Int64(choice.encodes))
    }

    private let videoStills = Locked<[String: CoreMetrics.Counter]>([:])

    /// One video still made (a poster, a preview's keyframes), with the bytes it read from the
    /// source (a file, an S3 object's ranges): what a frame costs, and proof a poster does not
    /// read whole videos.
    package func videoStill(sourceBytes: Int) {
        Self.cached(videoStills, "stills") {
            CoreMetrics.Counter(label: "thumbd_video_stills_total", dimensions: [], factory: factory)
        }.increment()
        Self.cached(videoStills, "bytes") {
            CoreMetrics.Counter(label: "thumbd_video_source_bytes_total", dimensions: [], factory: factory)
        }.increment(by: Int64(sourceBytes))
    }

    private let origin = Locked<[String: CoreMetrics.Counter]>([:])
    private let originDuration = Locked<[String: CoreMetrics.Timer]>([:])

    /// One origin fetch or revalidation.
    package func originFetch(_ result: OriginFetchResult, seconds: Double) {
        Self.cached(origin, result.rawValue) {
            CoreMetrics.Counter(label: "thumbd_origin_fetches_total", dimensions: [("result", result.rawValue)], factory: factory)
        }.increment()
        Self.cached(originDuration, "all") {
            CoreMetrics.Timer(label: "thumbd_origin_fetch_duration_seconds", dimensions: [], factory: factory)
        }.recordNanoseconds(Int64(seconds * 1e9))
    }

    private let s3 = Locked<[String: CoreMetrics.Counter]>([:])
    private let s3Duration = Locked<[String: CoreMetrics.Timer]>([:])

    /// One request to an S3 store.
    package func s3Request(_ operation: S3Client.Operation, _ result: S3RequestResult, seconds: Double) {
        Self.cached(s3, operation.rawValue + " " + result.rawValue) {
            CoreMetrics.Counter(label: "thumbd_s3_requests_total", dimensions: [("operation", operation.rawValue), ("result", result.rawValue)],
                                factory: factory)
        }.increment()
        Self.cached(s3Duration, operation.rawValue) {
            CoreMetrics.Timer(label: "thumbd_s3_request_duration_seconds", dimensions: [("operation", operation.rawValue)], factory: factory)
        }.recordNanoseconds(Int64(seconds * 1e9))
    }

    /// A counter that mirrors a total kept elsewhere: increments by what it grew since.
    package func total(_ name: String, _ dimensions: [(String, String)], _ value: Int) {
        let key = name + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        let counter = Self.cached(counters, key) { CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory) }
        let delta = reported.withLock { last -> Int in
            let d = value - (last[key] ?? 0)
            last[key] = value
            return d
        }
        counter.increment(by: max(0, delta))
        _ = counter
    }

    package func gauge(_ name: String, _ dimensions: [(String, String)], _ value: Int) {
        let key = name + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        Self.cached(gauges, key) { CoreMetrics.Gauge(label: name, dimensions: dimensions, factory: factory) }.record(value)
    }

    /// The Prometheus text exposition.
    package func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// One route's request metrics: the duration histogram and byte counter exist from the start
/// (every route shows, at zero); counters by status are made on first use.
private final class RouteMetrics: Sendable {
    let label: String
    let duration: CoreMetrics.Timer
    let bytes: CoreMetrics.Counter
    private let factory: PrometheusMetricsFactory
    private let byStatus = Locked<[Int: CoreMetrics.Counter]>([:])

    init(label: String, factory: PrometheusMetricsFactory) {
        self.label = label
        self.factory = factory
        duration = CoreMetrics.Timer(label: "thumbd_http_request_duration_seconds", dimensions: [("route", label)], factory: factory)
        bytes = CoreMetrics.Counter(label: "thumbd_http_response_bytes_total", dimensions: [("route", label)], factory: factory)
    }

    func counter(status: Int) -> CoreMetrics.Counter {
        byStatus.withLock { map in
            if let counter = map[status] { return counter }
            let counter = CoreMetrics.Counter(label: "thumbd_http_requests_total",
                                              dimensions: [("route", label), ("status", String(status))], factory: factory)
            map[status] = counter
            return counter
        }
    }
}
