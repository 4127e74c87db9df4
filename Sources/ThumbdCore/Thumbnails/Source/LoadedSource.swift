/// Source bytes, read or fetched, with the step that got them.
package struct LoadedSource: Sendable {
    package var version: SourceVersion
    package var bytes: [UInt8]
    package var step: WorkStep
    /// The cache tier the bytes came from, for a remote original used without asking the
    /// origin; nil for a library file or an original the origin just sent or confirmed.
    package var tier: CacheTier? = nil
    /// Which still of the source the bytes are; nil for the source's own bytes.
    package var still: Still? = nil

    /// Pixels made from a source rather than the source itself: their faces are their own.
    package enum Still: Sendable, Hashable {
        /// A video's poster or preview.
        case video(VideoStills.Kind)
        /// A vector page drawn at one size.
        case drawing(width: Int, height: Int)
    }

    package init(version: SourceVersion, bytes: [UInt8], step: WorkStep, tier: CacheTier? = nil, still: Still? = nil) {
        self.version = version
        self.bytes = bytes
        self.step = step
        self.tier = tier
        self.still = still
    }
}
