import Foundation

/// How a `ThumbdLoader` caches and negotiates.
public struct ThumbdLoaderConfiguration: Sendable {
    /// Bound of the memory tier, in the loader's cost units (bytes of decoded images with the
    /// default cost function). 0 turns the tier off.
    public var memoryCapacity: Int
    /// Folder of the disk tier; nil: no disk tier (partial downloads then stay in memory only).
    public var diskDirectory: URL?
    /// Bound of the disk tier in bytes (entries and partial downloads together).
    public var diskCapacity: Int
    /// Bound of the partial downloads kept in memory for resuming, in bytes.
    public var partialDownloadMemory: Int
    /// Sent with every request and part of every cache key, so `fm=auto` answers
    /// (`Vary: Accept`) are kept per negotiated format. Name only formats your decode
    /// function reads: thumbd picks AVIF, then WebP, only when they are named here.
    public var accept: String
    /// Prefetches running at once.
    public var maxConcurrentPrefetches: Int
    /// The clock freshness is measured with (tests move it instead of sleeping).
    public var now: @Sendable () -> Date

    public init(memoryCapacity: Int = 64 << 20,
                diskDirectory: URL? = nil,
                diskCapacity: Int = 256 << 20,
                partialDownloadMemory: Int = 32 << 20,
                accept: String = "image/webp,image/jpeg,image/png,*/*;q=0.5",
                maxConcurrentPrefetches: Int = 4,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.memoryCapacity = memoryCapacity
        self.diskDirectory = diskDirectory
        self.diskCapacity = diskCapacity
        self.partialDownloadMemory = partialDownloadMemory
        self.accept = accept
        self.maxConcurrentPrefetches = maxConcurrentPrefetches
        self.now = now
    }

    /// The app's caches folder + `ThumbdKit` (or the temporary folder where there is none).
    public static var defaultDiskDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("ThumbdKit", isDirectory: true)
    }
}
