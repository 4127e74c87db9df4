/// Source bytes, read or fetched, with the step that got them.
struct LoadedSource: Sendable {
    var version: SourceVersion
    var bytes: [UInt8]
    var step: WorkStep
    /// The cache tier the bytes came from, for a remote original used without asking the
    /// origin; nil for a library file or an original the origin just sent or confirmed.
    var tier: CacheTier? = nil
}
