import HTTP
import HTTPServer
import ThumbdCore
import WireCoding

/// The access log (`logging.access`): one line per finished exchange, `time info thumbd.access:
/// client method target status bytes duration tier route`, composed as bytes straight into
/// the `LogSink` buffer of the event loop's thread and written in batches. It runs for every
/// request, so it skips swift-log (and any String between); other log lines go through it.
struct AccessLog: Sendable {
    /// The label of its lines, beside the others' `thumbd`.
    static let defaultLabel = "thumbd.access"

    let sink: LogSink
    let label: String

    init(sink: LogSink = .standardError, label: String = AccessLog.defaultLabel) {
        self.sink = sink
        self.label = label
    }

    func record(_ exchange: CompletedExchange, route: String) {
        sink.append(level: "info", label: label, buffered: true) { line in
            line.append(contentsOf: exchange.client.isEmpty ? "-".utf8 : exchange.client.utf8)
            line.append(32)
            line.append(contentsOf: exchange.method.utf8)
            line.append(32)
            line.append(contentsOf: exchange.target.utf8)
            line.append(32)
            DecimalText.append(Int64(exchange.status), to: &line)
            line.append(32)
            DecimalText.append(exchange.bodyBytes, to: &line)
            line.append(32)
            ServerTiming.appendMilliseconds(exchange.duration, to: &line)  // 0.0015 s -> 1.50
            line.append(contentsOf: "ms ".utf8)
            line.append(contentsOf: (exchange.annotation ?? "-").utf8)
            line.append(32)
            line.append(contentsOf: route.utf8)
        }
    }
}
