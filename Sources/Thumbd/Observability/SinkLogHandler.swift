import Logging
import ThumbdCore

/// swift-log handler writing `time level label: [metadata] message` lines to a `LogSink`.
/// Access-log lines are buffered; everything else is written at once.
public struct SinkLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let sink: LogSink
    private let buffered: Bool

    public init(label: String, sink: LogSink = .standardError, buffered: Bool) {
        self.label = label
        self.sink = sink
        self.buffered = buffered
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text: String?
        if !metadata.isEmpty || event.metadata?.isEmpty == false {
            var all = metadata
            if let explicit = event.metadata { all.merge(explicit) { $1 } }
            text = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        sink.write(level: event.level.rawValue, label: label, metadata: text, message: event.message.description,
                   buffered: buffered && event.level < .warning)
    }
}
