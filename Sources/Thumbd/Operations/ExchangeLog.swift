import HTTP
import Logging

/// Sees every finished exchange: counts it in the metrics and, when enabled, writes the
/// access-log line (method, target, status, bytes, duration, cache tier).
struct ExchangeLog: HTTPObserver {
    let metrics: ThumbdMetrics
    let logger: Logger?

    func exchangeCompleted(_ exchange: CompletedExchange) {
        let route = Self.route(of: exchange.target)
        metrics.recordRequest(route: route, status: exchange.status, bodyBytes: exchange.bodyBytes, seconds: exchange.duration)
        guard let logger else { return }
        let cache = exchange.responseHeaders["X-Cache"] ?? "-"
        logger.info("\(exchange.method) \(exchange.target) \(exchange.status) \(exchange.bodyBytes) \(ServerTiming.milliseconds(exchange.duration))ms \(cache)")
    }

    /// A small, fixed set of route labels (never the path itself: that would explode the
    /// number of series).
    static func route(of target: String) -> String {
        let utf8 = target.utf8
        if utf8.starts(with: "/img/".utf8) { return "img" }
        if utf8.starts(with: "/proxy".utf8) { return "proxy" }
        if utf8.starts(with: "/health".utf8) { return "health" }
        if utf8.starts(with: "/metrics".utf8) { return "metrics" }
        if utf8.starts(with: "/v1/images".utf8) { return "images" }
        if target == "/" { return "gallery" }
        return "other"
    }
}
