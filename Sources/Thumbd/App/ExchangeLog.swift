import HTTP
import HTTPServer
import ThumbdCore

/// Sees every finished exchange: counts it in the metrics and, when enabled, writes its
/// access-log line, both labelled by its route.
struct ExchangeLog: HTTPObserver {
    let metrics: ThumbdMetrics
    let accessLog: AccessLog?

    func exchangeCompleted(_ exchange: CompletedExchange) {
        let route = Route(tag: exchange.tag)
        metrics.recordRequest(routeIndex: route?.rawValue ?? Route.allCases.count, status: exchange.status,
                              bodyBytes: exchange.bodyBytes, seconds: exchange.duration)
        accessLog?.record(exchange, route: route?.label ?? Route.invalidLabel)
    }
}
