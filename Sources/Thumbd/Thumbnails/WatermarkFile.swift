import ThumbdProtocol

/// A watermark image as the thumbnail service needs it: its version (part of the cache key,
/// so a replaced watermark never serves an old output) and its bytes, read on a worker.
struct WatermarkFile: Sendable {
    let version: String
    let bytes: @Sendable () -> [UInt8]?
}

/// Where watermark images come from (the library): a missing one is a 400 naming `wm`.
protocol WatermarkImages: Sendable {
    func watermark(at path: String) throws(ParameterError) -> WatermarkFile
}
