/// Source bytes, read or fetched, with the step that got them.
package struct LoadedSource: Sendable {
    package var version: SourceVersion
    package var bytes: [UInt8]
    package var step: WorkStep
    /// The cache tier the bytes came from, for a remote original used without asking the
    /// origin; nil for a library file or an original the origin just sent or confirmed.
    package var tier: CacheTier? = nil
    /// For a video, which still of it the bytes are (`VideoStills.Kind`, as text); nil for a
    /// source's own bytes.
    package var still: String? = nil

    package init(version: SourceVersion, bytes: [UInt8], step: WorkStep, tier: CacheTier? = nil, still: String? = nil) {
        self.version = version
        self.bytes = bytes
        self.step = step
        self.tier = tier
        self.still = still
    }
}
