import HTTP

/// Source bytes, read or fetched, with the step that got them.
struct LoadedSource: Sendable {
    var version: SourceVersion
    var bytes: [UInt8]
    var step: ServerTiming.Step
}
