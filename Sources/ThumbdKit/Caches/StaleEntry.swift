import Foundation

/// An entry past its freshness, from either tier, with what a 304 needs to answer from it.
struct StaleEntry<Image: Sendable>: Sendable {
    var info: CachedResponseInfo
    /// From the disk tier: decoded on a 304.
    var body: Data?
    /// From the memory tier: reused as is on a 304, with its cost.
    var image: Image?
    var cost: Int?

    init(memory entry: MemoryImageCache<Image>.Entry) {
        info = entry.info
        image = entry.image
        cost = entry.cost
    }

    init(disk info: CachedResponseInfo, body: Data) {
        self.info = info
        self.body = body
    }
}
