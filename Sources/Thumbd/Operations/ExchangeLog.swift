import HTTP
import Logging

/// Sees every finished exchange: counts it in the metrics and, when enabled, writes the
/// access-log line (method, target, status, bytes, duration, cache tier).
struct ExchangeLog: HTTPObserver {
    let metrics: ThumbdMetrics
    let logger: Logger?

    func exchangeCompleted(_ exchange: CompletedExchange) {
        metrics.recordRequest(route: RouteLabel(target: exchange.target), status: exchange.status,
                              bodyBytes: exchange.bodyBytes, seconds: exchange.duration)
        guard let logger else { return }
        let cache = exchange.responseHeaders["X-Cache"] ?? "-"
        logger.info("\(exchange.method) \(exchange.target) \(exchange.status) \(exchange.bodyBytes) \(ServerTiming.milliseconds(exchange.duration))ms \(cache)")
    }
}
