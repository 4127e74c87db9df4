import HTTP
import Logging

/// Sees every finished exchange: counts it in the metrics and, when enabled, writes the
/// access-log line (client, method, target, status, bytes, duration, cache tier, route).
struct ExchangeLog: HTTPObserver {
    let metrics: ThumbdMetrics
    let logger: Logger?

    func exchangeCompleted(_ exchange: CompletedExchange) {
        let route = Route(tag: exchange.tag)
        metrics.recordRequest(routeIndex: route?.rawValue ?? Route.allCases.count, status: exchange.status,
                              bodyBytes: exchange.bodyBytes, seconds: exchange.duration)
        guard let logger else { return }
        // One string, grown once: this runs for every request.
        var line = exchange.client.isEmpty ? "-" : exchange.client
        line.reserveCapacity(line.utf8.count + exchange.method.utf8.count + exchange.target.utf8.count + 40)
        line += " "
        line += exchange.method
        line += " "
        line += exchange.target
        line += " "
        line += String(exchange.status)
        line += " "
        line += String(exchange.bodyBytes)
        line += " "
        line += ServerTiming.milliseconds(exchange.duration)
        line += "ms "
        line += exchange.annotation ?? "-"
        line += " "
        line += route?.label ?? Route.invalidLabel
        logger.info(Logger.Message(stringLiteral: line))
    }
}
