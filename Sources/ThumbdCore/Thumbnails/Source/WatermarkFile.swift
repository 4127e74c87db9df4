import ThumbdProtocol

/// A watermark image as the thumbnail service needs it: its version (part of the cache key,
/// so a replaced watermark never serves an old output) and its bytes, read on a worker.
package struct WatermarkFile: Sendable {
    package let version: String
    package let bytes: @Sendable () -> [UInt8]?

    package init(version: String, bytes: @escaping @Sendable () -> [UInt8]?) {
        self.version = version
        self.bytes = bytes
    }
}

/// Where watermark images come from (the library): a missing one is a 400 naming `wm`.
package protocol WatermarkImages: Sendable {
    func watermark(at path: String) throws(ParameterError) -> WatermarkFile
}
